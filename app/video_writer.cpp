// Video output (video_writer.h): the names, the PNG frames, the encoding thread, and the
// temporary file or folder that becomes the output only when every frame was written.
#include "video_writer.h"

#include <stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "engine/frame_stats.h"

namespace fs = std::filesystem;

namespace pr {

namespace {

bool ends_with_nocase(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

bool is_folder_name(const std::string& out) {
  std::error_code ec;
  return !out.empty() && (out.back() == '/' || fs::is_directory(out, ec));
}

/// A hidden name beside `path` for what is written before it is complete:
/// "DIR/.NAME.partial-PID".
std::string temp_beside(const std::string& path) {
  const fs::path p(path);
  const std::string name = p.filename().string().empty() ? "frames" : p.filename().string();
  return (p.parent_path() / ("." + name + ".partial-" + std::to_string(getpid()))).string();
}

/// The folder `path` lies in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

/// A PNG frame written through stb's encoder into a file whose every write is checked (a full
/// disk fails the frame; stbi_write_png() does not look). `error`: errno of the first failure.
struct PngFile {
  std::FILE* f = nullptr;
  int error = 0;
  static void put(void* context, void* data, int size) {
    auto* self = static_cast<PngFile*>(context);
    if (!self->error && std::fwrite(data, 1, size_t(size), self->f) != size_t(size))
      self->error = errno ? errno : EIO;
  }
};

class PngSink : public FrameSink {
 public:
  PngSink(std::string folder, std::string pattern)
      : folder_(std::move(folder)), pattern_(std::move(pattern)) {}
  bool write(const Image& frame, std::string* error) override {
    char name[512];
    std::snprintf(name, sizeof name, fs::path(pattern_).filename().c_str(), index_++);
    const std::string path = (fs::path(folder_) / name).string();
    PngFile out;
    out.f = std::fopen(path.c_str(), "wb");
    if (!out.f) return fail(path, errno, error);
    if (!stbi_write_png_to_func(&PngFile::put, &out, frame.width, frame.height, 4,
                                frame.rgba.data(), frame.width * 4) &&
        !out.error)
      out.error = ENOMEM;  // stb fails only when its buffers cannot be had
    if (std::fclose(out.f) != 0 && !out.error) out.error = errno ? errno : EIO;
    return out.error ? fail(path, out.error, error) : true;
  }
  bool close(std::string*) override { return true; }

 private:
  static bool fail(const std::string& path, int err, std::string* error) {
    *error = "cannot write " + path + ": " + std::strerror(err);
    return false;
  }
  std::string folder_, pattern_;
  int index_ = 0;
};

}  // namespace

VideoFormat video_format(const std::string& out) {
  if (ends_with_nocase(out, ".mp4")) return VideoFormat::kMp4;
  if (is_folder_name(out) || ends_with_nocase(out, ".png")) return VideoFormat::kPng;
  return VideoFormat::kNone;
}

bool png_pattern(const std::string& out, std::string* pattern, std::string* error) {
  if (is_folder_name(out)) {
    *pattern = (fs::path(out) / "frame_%05d.png").string();
    return true;
  }
  const size_t pct = out.find('%');
  if (pct == std::string::npos) {  // NAME.png: the frame numbers before the suffix
    *pattern = out.substr(0, out.size() - 4) + "_%05d" + out.substr(out.size() - 4);
    return true;
  }
  // One %d or %0Nd, N of one digit, and no other %.
  size_t at = pct + 1;
  if (at < out.size() && out[at] == '0') ++at;
  if (at < out.size() && std::isdigit(static_cast<unsigned char>(out[at]))) ++at;
  if (at >= out.size() || out[at] != 'd' || out.find('%', at) != std::string::npos ||
      out.find('/', pct) != std::string::npos) {
    *error = "--video " + out +
             ": a PNG frames name holds one %d or %0Nd in its file name (e.g. frames/f_%05d.png)";
    return false;
  }
  *pattern = out;
  return true;
}

void video_size(VideoFormat format, int width, int height, int* out_width, int* out_height) {
  const bool even = format == VideoFormat::kMp4;
  *out_width = even ? std::max(2, width & ~1) : width;
  *out_height = even ? std::max(2, height & ~1) : height;
}

VideoWriter::~VideoWriter() {
  cancel();
}

bool VideoWriter::open(const std::string& out, int width, int height, int fps, std::string* error) {
  cancel();
  out_ = out;
  format_ = video_format(out);
  width_ = width, height_ = height, frames_ = 0;
  wait_ms_ = 0.0;
  failed_ = closing_ = dropping_ = false;
  std::error_code ec;
  if (format_ == VideoFormat::kMp4) {
    if (!fs::is_directory(folder_of(out), ec)) {
      *error =
          "cannot write " + out + ": its folder " + folder_of(out).string() + " does not exist";
      return false;
    }
    temp_ = temp_beside(out);
    sink_ = open_mp4_sink(temp_, width, height, fps, &description_, error);
    if (!sink_) {
      fs::remove(temp_, ec);
      *error = "cannot write " + out + ": " + *error;
      return false;
    }
  } else if (format_ == VideoFormat::kPng) {
    if (!png_pattern(out, &pattern_, error)) return false;
    const fs::path folder = folder_of(pattern_);
    if (!fs::is_directory(folder, ec)) {
      if (!is_folder_name(out) || !fs::create_directories(folder, ec)) {
        *error = "cannot write " + out + ": its folder " + folder.string() + " does not exist" +
                 (ec ? " and cannot be made (" + ec.message() + ")" : "");
        return false;
      }
      made_dir_ = folder.string();
    }
    temp_ = temp_beside((folder / "frames").string());
    if (!fs::create_directory(temp_, ec)) {
      *error = "cannot write " + out + ": " + (ec ? ec.message() : "cannot make " + temp_);
      remove_temp();
      return false;
    }
    sink_ = std::make_unique<PngSink>(temp_, pattern_);
    description_ = "PNG frames " + pattern_;
  } else {
    *error = "--video " + out + ": neither .mp4 nor PNG frames (a folder, NAME.png, NAME_%05d.png)";
    return false;
  }
  thread_ = std::thread([this] { run(); });
  return true;
}

void VideoWriter::run() {
  for (;;) {
    Image frame;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return !queue_.empty() || closing_ || dropping_; });
      if (dropping_ || (queue_.empty() && closing_)) return;
      frame = std::move(queue_.front());
      queue_.pop_front();
    }
    std::string why;
    const bool ok = sink_->write(frame, &why);
    std::lock_guard<std::mutex> lock(mutex_);
    spare_.push_back(std::move(frame));
    changed_.notify_all();
    if (!ok) {
      failed_ = true;
      error_ = why;
      return;
    }
  }
}

bool VideoWriter::write(Image& frame, std::string* error) {
  if (!thread_.joinable()) {
    *error = "the video " + out_ + " is not open";
    return false;
  }
  if (frame.width != width_ || frame.height != height_) {
    *error = "a frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
             " for a video of " + std::to_string(width_) + "x" + std::to_string(height_);
    return false;
  }
  Stopwatch waited;
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < kQueued || failed_; });
  wait_ms_ += waited.ms();
  if (failed_) {
    *error = error_;
    return false;
  }
  queue_.push_back(std::move(frame));
  frame = Image{};
  if (!spare_.empty()) {  // a buffer of the same size to draw into, not a new allocation
    frame = std::move(spare_.back());
    spare_.pop_back();
  }
  ++frames_;
  changed_.notify_all();
  return true;
}

bool VideoWriter::ready() {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size() < kQueued || failed_;
}

void VideoWriter::stop_thread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool VideoWriter::finish(std::string* error) {
  if (!sink_) {
    *error = "the video " + out_ + " is not open";
    return false;
  }
  stop_thread();
  bool ok = !failed_;
  if (!ok) *error = error_;
  if (ok && !sink_->close(error)) ok = false;
  sink_.reset();
  if (ok) ok = move_into_place(error);
  if (!ok) {
    *error = *error + ": " + out_ + " not written";
    remove_temp();
  }
  temp_.clear();  // moved into place, or removed
  made_dir_.clear();
  queue_.clear();
  spare_.clear();
  return ok;
}

bool VideoWriter::move_into_place(std::string* error) {
  std::error_code ec;
  if (format_ == VideoFormat::kMp4) {
    fs::rename(temp_, out_, ec);
    if (ec) {
      *error = "cannot move the finished video into place (" + ec.message() + ")";
      return false;
    }
    return true;
  }
  // PNG frames: each into the folder of the pattern (one rename a file, on the same disk).
  const fs::path folder = folder_of(pattern_);
  for (int k = 0; k < frames_; ++k) {
    char name[512];
    std::snprintf(name, sizeof name, fs::path(pattern_).filename().c_str(), k);
    fs::rename(fs::path(temp_) / name, folder / name, ec);
    if (ec) {
      *error = "cannot move frame " + std::string(name) + " into place (" + ec.message() + ")";
      for (int j = 0; j < k; ++j) {  // the frames moved already go too: all or nothing
        std::snprintf(name, sizeof name, fs::path(pattern_).filename().c_str(), j);
        fs::remove(folder / name, ec);
      }
      return false;
    }
  }
  fs::remove(temp_, ec);
  return true;
}

void VideoWriter::cancel() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      dropping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  sink_.reset();  // the encoder closes its file
  remove_temp();
  queue_.clear();
  spare_.clear();
}

void VideoWriter::remove_temp() {
  std::error_code ec;
  if (!temp_.empty()) fs::remove_all(temp_, ec);
  temp_.clear();
  if (!made_dir_.empty() && fs::is_empty(made_dir_, ec)) fs::remove(made_dir_, ec);
  made_dir_.clear();
}

}  // namespace pr
