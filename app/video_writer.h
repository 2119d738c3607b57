// Writing a video's frames (docs/VIDEO.md): an MP4 file of H.264 through FFmpeg's libraries
// (libavcodec, libavformat, libswscale; the build finds them with pkg-config and without them
// writes PNG frames only), or PNG frames. Frames are encoded on a thread of their own while the
// next one renders. Nothing is left behind unless the whole video was written: an MP4 goes to a
// hidden file beside OUT, PNG frames to a hidden folder beside them, and finish() renames them
// into place; cancel(), an error or a full disk removes them.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/image.h"

namespace pr {

enum class VideoFormat {
  kNone,  ///< a name that picks neither
  kMp4,   ///< OUT ends in .mp4 (any case): H.264, yuv420p
  kPng,   ///< a folder (one that exists, or a name ending in /), a name with one %d (%05d ...)
          ///< ending in .png, or a name ending in .png (frame numbers inserted before the suffix)
};

/// The format `out` asks for.
VideoFormat video_format(const std::string& out);

/// The PNG frames' file names for `out` (a kPng name): a printf pattern with one integer, e.g.
/// "out/frame_%05d.png" for the folder "out/", "shot_%05d.png" for "shot.png", `out` itself when
/// it holds one %d or %0Nd (N up to 9); frames count from 0. False with the message for a % that
/// is not one such conversion.
bool png_pattern(const std::string& out, std::string* pattern, std::string* error);

/// Whether MP4 (H.264) can be written: built with FFmpeg, and its libavcodec has an H.264
/// encoder; else why (with what to do instead).
bool mp4_available(std::string* why);

/// The size the frames of a `format` video of width x height are drawn and written at: an MP4's
/// rounded down to even numbers (H.264 in yuv420p keeps one color sample per 2x2 pixels, and its
/// encoders refuse odd sizes), at least 2; PNG frames' as asked.
void video_size(VideoFormat format, int width, int height, int* out_width, int* out_height);

/// Where the frames go: an encoder (FFmpeg) or PNG files. Internal to video_writer.cpp and the
/// MP4 encoder's file.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  /// Encodes and writes one frame of the size the sink was opened with; false with the message.
  virtual bool write(const Image& frame, std::string* error) = 0;
  /// Writes what the encoder still holds and closes the file; false with the message.
  virtual bool close(std::string* error) = 0;
};

class VideoWriter {
 public:
  VideoWriter() = default;
  ~VideoWriter();  ///< cancels a video not finished
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  /// Opens `out` for frames of width x height at `fps` frames a second (width and height from
  /// video_size()): the temporary file or folder beside it, the encoder, the encoding thread.
  /// False with one line naming OUT and the problem (a folder that does not exist, no encoder).
  bool open(const std::string& out, int width, int height, int fps, std::string* error);
  /// Hands one frame to the encoding thread, taking its pixels: `frame` is left holding a spare
  /// buffer (the caller draws the next frame into it). Waits while kQueued frames wait already.
  /// False with the message once encoding or writing failed (then cancel()).
  bool write(Image& frame, std::string* error);
  /// Writes the frames that wait, closes the file and moves it (or the PNG frames) into place.
  /// False with the message (nothing left behind).
  bool finish(std::string* error);
  /// Stops, and removes what was written.
  void cancel();
  /// Whether write() would take a frame without waiting (or fail at once).
  bool ready();

  /// "H.264 (libx264), yuv420p, crf 18, preset fast" or "PNG frames NAME_%05d.png".
  const std::string& description() const { return description_; }
  /// Milliseconds write() waited for the encoder in all (the encoder behind the renderer).
  double wait_ms() const { return wait_ms_; }
  /// Frames written so far.
  int frames() const { return frames_; }
  /// Frames wait on the encoding thread (each one a whole image in memory).
  static constexpr size_t kQueued = 3;

 private:
  void run();          // the encoding thread
  void stop_thread();  // after the queue drained or was dropped
  void remove_temp();  // what was written, and a folder made for it
  bool move_into_place(std::string* error);

  std::string out_, temp_;  // temp_: the hidden MP4 file, or the hidden folder of PNG frames
  std::string pattern_;     // PNG: the final names' pattern
  std::string made_dir_;    // PNG: the folder open() made for the frames ("" when it existed)
  VideoFormat format_ = VideoFormat::kNone;
  std::unique_ptr<FrameSink> sink_;
  std::string description_;
  int width_ = 0, height_ = 0, frames_ = 0;
  double wait_ms_ = 0.0;

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Image> queue_;
  std::vector<Image> spare_;  // buffers the thread has finished with
  bool closing_ = false, dropping_ = false, failed_ = false;
  std::string error_;
};

/// The MP4 encoder (video_mp4.cpp with FFmpeg, video_mp4_none.cpp without): a sink writing
/// `path` (an MP4 whatever its name) at width x height, `fps` frames a second, and what it chose
/// in `description`; null with the message.
std::unique_ptr<FrameSink> open_mp4_sink(const std::string& path, int width, int height, int fps,
                                         std::string* description, std::string* error);

}  // namespace pr
