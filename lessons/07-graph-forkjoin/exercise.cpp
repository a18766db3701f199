// Lesson 07's exercise: the student captures the training step with fork/join so that its graph is
// a parallel DAG, on the lab's bench (exercise_bench.hpp). Its starter captures everything on the
// origin stream (one chain, lesson 06's pitfall); its solution is the lesson's own fork/join.
#include "common/exercise/exercise.hpp"
#include "exercise_bench.hpp"
#include "lessons/07-graph-forkjoin/exercise_files.hpp"
#include "params.hpp"

namespace cudalab {

CUDALAB_EXERCISE(
    ExerciseDescription(7, "graph-forkjoin", "capture")
        .speaks("graph_forkjoin_capture", 1)
        .goal_is("capture the training step with fork/join, so that its graph is a parallel DAG")
        .told({"capture() runs while the bench captures lab.origin; every batch must go into the capture, through "
               "lab.enqueue_batch",
               "the starter is correct and slow: it captures every batch on lab.origin, so the graph is one chain",
               "done: as many branches as the step allows, every element right, and a speed-up over the one-stream "
               "capture of 90% of what the model and the lab's own fork/join give"})
        .hinted({"A stream joins a capture by waiting on an event recorded on a stream that is already capturing: "
                 "record lab.events[0] on lab.origin, and make each of lab.streams wait on it.",
                 "Give batch b to lab.streams[b % lab.stream_count]: batches on different streams have no edge "
                 "between them, so the graph runs them side by side.",
                 "Before capture() returns, every stream you brought in must join back: record lab.events[1 + s] on "
                 "stream s and make lab.origin wait on it. A stream left out makes cudaStreamEndCapture fail with "
                 "cudaErrorStreamCaptureUnjoined.",
                 "No cudaStreamSynchronize or cudaDeviceSynchronize while capturing: a synchronize is not allowed "
                 "in a capture and invalidates it."})
        .files(std::string(exercise_files::k_starter), std::string(exercise_files::k_solution),
               std::string(exercise_files::k_header))
        .made_by([] {
          return make_exercise(graph_forkjoin::flags, Repetitions{2, 10}, graph_forkjoin::run_capture_exercise);
        })
        .served_by(graph_forkjoin::serve_capture))

}  // namespace cudalab
