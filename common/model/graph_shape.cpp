#include "common/model/graph_shape.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>

namespace cudalab {

namespace {

// A row of the reachability matrix: one bit per node.
using BitRow = std::vector<std::uint64_t>;

void set_bit(BitRow& row, std::size_t i) { row[i / 64] |= std::uint64_t{1} << (i % 64); }

// Maximum bipartite matching (left u -> right v when u reaches v), by augmenting paths (Kuhn).
// Nodes are tried in topological order so that chains are matched greedily first. By Dilworth's
// theorem the graph's width is its node count minus this matching.
std::size_t max_reachability_matching(const std::vector<std::size_t>& order, const std::vector<BitRow>& reaches) {
  const std::size_t node_count = order.size();
  const std::size_t words = reaches.empty() ? 0 : reaches.front().size();
  std::vector<std::size_t> matched_left_of(node_count, node_count);  // right v -> left u
  std::vector<char> visited(node_count);
  std::function<bool(std::size_t)> augment = [&](std::size_t u) {
    for (std::size_t k = 0; k < words; ++k) {
      std::uint64_t bits = reaches[u][k];
      while (bits != 0) {
        const std::size_t v = k * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
        bits &= bits - 1;
        if (visited[v]) continue;
        visited[v] = 1;
        if (matched_left_of[v] == node_count || augment(matched_left_of[v])) {
          matched_left_of[v] = u;
          return true;
        }
      }
    }
    return false;
  };
  std::size_t matching = 0;
  for (std::size_t u : order) {
    std::fill(visited.begin(), visited.end(), 0);
    if (augment(u)) ++matching;
  }
  return matching;
}

}  // namespace

DagShape analyze_dag(std::size_t node_count, const std::vector<std::pair<std::size_t, std::size_t>>& edge_list) {
  std::set<std::pair<std::size_t, std::size_t>> unique_edges;
  for (const auto& e : edge_list) {
    if (e.first >= node_count || e.second >= node_count) throw std::invalid_argument("edge names a node that does not exist");
    unique_edges.insert(e);
  }
  std::vector<std::vector<std::size_t>> successors(node_count);
  std::vector<std::size_t> in_degree(node_count, 0);
  for (const auto& e : unique_edges) {
    successors[e.first].push_back(e.second);
    ++in_degree[e.second];
  }

  DagShape shape;
  shape.nodes = node_count;
  shape.edges = unique_edges.size();
  if (node_count == 0) return shape;

  // Kahn's algorithm: a topological order, or a cycle.
  std::vector<std::size_t> order;
  order.reserve(node_count);
  std::vector<std::size_t> remaining = in_degree;
  for (std::size_t v = 0; v < node_count; ++v) {
    if (remaining[v] == 0) order.push_back(v);
  }
  for (std::size_t head = 0; head < order.size(); ++head) {
    for (std::size_t w : successors[order[head]]) {
      if (--remaining[w] == 0) order.push_back(w);
    }
  }
  if (order.size() != node_count) throw std::invalid_argument("the graph has a cycle");

  // Depth = nodes on the longest path from a root, ending here.
  std::vector<std::size_t> depth(node_count, 1);
  for (std::size_t v : order) {
    for (std::size_t w : successors[v]) depth[w] = std::max(depth[w], depth[v] + 1);
  }
  std::vector<std::size_t> per_level(node_count + 1, 0);
  for (std::size_t v = 0; v < node_count; ++v) {
    ++per_level[depth[v]];
    shape.critical_path = std::max(shape.critical_path, depth[v]);
    if (in_degree[v] == 0) ++shape.roots;
    if (successors[v].empty()) ++shape.leaves;
  }
  shape.widest_level = *std::max_element(per_level.begin(), per_level.end());

  // Reachability (transitive closure), built in reverse topological order.
  const std::size_t words = (node_count + 63) / 64;
  std::vector<BitRow> reaches(node_count, BitRow(words, 0));
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    for (std::size_t w : successors[*it]) {
      set_bit(reaches[*it], w);
      for (std::size_t k = 0; k < words; ++k) reaches[*it][k] |= reaches[w][k];
    }
  }

  shape.width = node_count - max_reachability_matching(order, reaches);
  return shape;
}

}  // namespace cudalab
