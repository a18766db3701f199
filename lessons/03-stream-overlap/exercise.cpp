// Lesson 03's exercise: the student writes the chunked pipeline over N streams, on the lab's bench
// (exercise_bench.hpp). Its starter is correct and slow (one stream); its solution is the lesson's
// own depth-first pipeline.
#include "common/exercise/exercise.hpp"
#include "exercise_bench.hpp"
#include "lessons/03-stream-overlap/exercise_files.hpp"
#include "params.hpp"

namespace cudalab {

CUDALAB_EXERCISE(
    ExerciseDescription(3, "stream-overlap", "pipeline")
        .speaks("stream_overlap_pipeline", 1)
        .goal_is("write the chunked pipeline over N streams, so that copies overlap kernels")
        .told({"pipeline() gets the buffers, the chunks, the streams and the lesson's kernel; it must send every byte "
               "up, through the kernel and back",
               "the starter is correct and slow: every chunk goes through one stream, so nothing overlaps",
               "done: every byte right, and at least 90% of the lab's own depth-first speed-up in the same run"})
        .hinted({"One stream runs its work in order: the upload of chunk 1 waits for the download of chunk 0. Give "
                 "the chunks different streams.",
                 "Chunk c can take stream c % lab.stream_count. Keep each chunk's upload, kernel and download on the "
                 "same stream: a stream keeps them in order, so the kernel never reads a chunk before it arrived.",
                 "Issue each chunk whole (upload, kernel, download) before the next one: depth-first. Issuing every "
                 "upload first (breadth-first) makes a stream's kernel wait behind the uploads queued before it.",
                 "No cudaDeviceSynchronize or cudaStreamSynchronize inside pipeline(): the bench waits for your "
                 "streams itself, and every wait inside stops the host from queueing the next chunk."})
        .files(std::string(exercise_files::k_starter), std::string(exercise_files::k_solution),
               std::string(exercise_files::k_header))
        .made_by([] {
          return make_exercise(stream_overlap::flags, Repetitions{3, 30}, stream_overlap::run_pipeline_exercise);
        })
        .served_by(stream_overlap::serve_pipeline))

}  // namespace cudalab
