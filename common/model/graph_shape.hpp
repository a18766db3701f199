// The shape of a DAG (a CUDA graph read back with cudaGraphGetNodes/cudaGraphGetEdges, or any
// other): how many nodes and edges, how many nodes can run at once, and how long the longest
// dependency chain is. Pure C++, unit-tested on synthetic DAGs.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace cudalab {

struct DagShape {
  std::size_t nodes = 0;
  std::size_t edges = 0;
  // The most nodes that may run at the same moment: the largest antichain (a set of nodes no two
  // of which are connected by a path). Computed exactly with Dilworth's theorem: width = nodes -
  // maximum matching in the bipartite graph of "u reaches v" pairs (minimum chain cover).
  std::size_t width = 0;
  // The most nodes at the same depth (depth = nodes on the longest path from a root). Every such
  // level is an antichain, so this is a lower bound on `width`; kept to show the difference.
  std::size_t widest_level = 0;
  // Nodes on the longest root-to-leaf path: the steps the graph needs even with unlimited engines.
  std::size_t critical_path = 0;
  std::size_t roots = 0;
  std::size_t leaves = 0;
};

// `edges` are (from, to) pairs of node indices in [0, node_count). Throws std::invalid_argument
// for an index out of range or a cycle. Duplicate edges count once in `edges`.
DagShape analyze_dag(std::size_t node_count, const std::vector<std::pair<std::size_t, std::size_t>>& edges);

}  // namespace cudalab
