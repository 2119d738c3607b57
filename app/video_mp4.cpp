// The MP4 encoder through FFmpeg's libraries (built when pkg-config finds libavcodec,
// libavformat, libswscale and libavutil): RGBA frames to yuv420p (BT.709, limited range, as
// players assume for HD video) by libswscale, H.264 by libx264 where the installed libavcodec has
// it (constant quality CRF 18, near visually lossless for x264; preset fast), else
// by the first other H.264 encoder that opens (a hardware one: a bit rate of 0.1 bit a pixel),
// muxed into MP4 with the index at the front (+faststart) so that players start at once.
#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "video_writer.h"

namespace pr {

namespace {

std::string av_text(int code) {
  char b[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(code, b, sizeof b);
  return b;
}

/// The H.264 encoders to try: libx264 first, then the others libavcodec has.
std::vector<const AVCodec*> h264_encoders() {
  std::vector<const AVCodec*> out;
  if (const AVCodec* x = avcodec_find_encoder_by_name("libx264")) out.push_back(x);
  void* it = nullptr;
  while (const AVCodec* c = av_codec_iterate(&it))
    if (av_codec_is_encoder(c) && c->id == AV_CODEC_ID_H264 && std::string(c->name) != "libx264")
      out.push_back(c);
  return out;
}

class Mp4Sink : public FrameSink {
 public:
  ~Mp4Sink() override { release(); }
  bool open(const std::string& path, int w, int h, int fps, std::string* description,
            std::string* error);
  bool write(const Image& frame, std::string* error) override;
  bool close(std::string* error) override;

 private:
  bool open_encoder(int w, int h, int fps, std::string* description, std::string* error);
  bool open_file(const std::string& path, int fps, std::string* error);
  /// Sends `frame` (null: the end) and writes the packets the encoder hands back.
  bool encode(AVFrame* frame, std::string* error);
  void release();

  AVFormatContext* fmt_ = nullptr;
  AVCodecContext* enc_ = nullptr;
  AVStream* stream_ = nullptr;
  SwsContext* sws_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  int64_t next_pts_ = 0;
  bool file_open_ = false;
};

bool Mp4Sink::open_encoder(int w, int h, int fps, std::string* description, std::string* error) {
  std::string tried;
  for (const AVCodec* codec : h264_encoders()) {
    enc_ = avcodec_alloc_context3(codec);
    if (!enc_) break;
    enc_->width = w;
    enc_->height = h;
    enc_->time_base = AVRational{1, fps};
    enc_->framerate = AVRational{fps, 1};
    enc_->pix_fmt = AV_PIX_FMT_YUV420P;
    enc_->gop_size = 2 * fps;  // a key frame every 2 s: players seek within that
    enc_->color_primaries = AVCOL_PRI_BT709;
    enc_->color_trc = AVCOL_TRC_BT709;
    enc_->colorspace = AVCOL_SPC_BT709;
    enc_->color_range = AVCOL_RANGE_MPEG;
    if (fmt_->oformat->flags & AVFMT_GLOBALHEADER) enc_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    const bool x264 = std::string(codec->name) == "libx264";
    if (x264) {
      av_opt_set(enc_->priv_data, "preset", "fast", 0);
      av_opt_set(enc_->priv_data, "crf", "18", 0);
    } else {
      enc_->bit_rate = int64_t(0.1 * double(w) * double(h) * double(fps));
    }
    const int rc = avcodec_open2(enc_, codec, nullptr);
    if (rc >= 0) {
      *description = std::string("H.264 (") + codec->name + "), yuv420p, " +
                     (x264 ? "crf 18, preset fast" : "0.1 bit a pixel");
      return true;
    }
    tried += std::string(tried.empty() ? "" : ", ") + codec->name + " (" + av_text(rc) + ")";
    avcodec_free_context(&enc_);
  }
  *error = tried.empty() ? "this FFmpeg (libavcodec " LIBAVCODEC_IDENT
                           ") has no H.264 encoder: write PNG frames instead (--video DIR/)"
                         : "no H.264 encoder opened: " + tried;
  return false;
}

bool Mp4Sink::open_file(const std::string& path, int fps, std::string* error) {
  stream_ = avformat_new_stream(fmt_, nullptr);
  if (!stream_) {
    *error = "cannot add a video stream";
    return false;
  }
  int rc = avcodec_parameters_from_context(stream_->codecpar, enc_);
  stream_->time_base = enc_->time_base;
  stream_->avg_frame_rate = AVRational{fps, 1};
  if (rc >= 0) rc = avio_open(&fmt_->pb, path.c_str(), AVIO_FLAG_WRITE);
  if (rc < 0) {
    *error = av_text(rc);
    return false;
  }
  file_open_ = true;
  AVDictionary* options = nullptr;
  av_dict_set(&options, "movflags", "+faststart", 0);
  rc = avformat_write_header(fmt_, &options);
  av_dict_free(&options);
  if (rc < 0) {
    *error = "cannot write the header: " + av_text(rc);
    return false;
  }
  return true;
}

bool Mp4Sink::open(const std::string& path, int w, int h, int fps, std::string* description,
                   std::string* error) {
  // The muxer by name: the temporary file's name does not end in .mp4.
  int rc = avformat_alloc_output_context2(&fmt_, nullptr, "mp4", path.c_str());
  if (rc < 0 || !fmt_) {
    *error = "this FFmpeg has no MP4 muxer (" + av_text(rc) + ")";
    return false;
  }
  if (!open_encoder(w, h, fps, description, error) || !open_file(path, fps, error)) return false;
  frame_ = av_frame_alloc();
  packet_ = av_packet_alloc();
  if (!frame_ || !packet_) {
    *error = "out of memory";
    return false;
  }
  frame_->format = AV_PIX_FMT_YUV420P;
  frame_->width = w;
  frame_->height = h;
  rc = av_frame_get_buffer(frame_, 0);
  sws_ = sws_getContext(w, h, AV_PIX_FMT_RGBA, w, h, AV_PIX_FMT_YUV420P, SWS_BICUBIC, nullptr,
                        nullptr, nullptr);
  if (rc < 0 || !sws_) {
    *error = rc < 0 ? av_text(rc) : "libswscale cannot convert RGBA to yuv420p";
    return false;
  }
  // Full-range RGB in, BT.709 limited range out.
  sws_setColorspaceDetails(sws_, sws_getCoefficients(SWS_CS_ITU709), 1,
                           sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
  return true;
}

bool Mp4Sink::encode(AVFrame* frame, std::string* error) {
  int rc = avcodec_send_frame(enc_, frame);
  if (rc < 0) {
    *error = "the encoder refused a frame: " + av_text(rc);
    return false;
  }
  for (;;) {
    rc = avcodec_receive_packet(enc_, packet_);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return true;
    if (rc < 0) {
      *error = "encoding failed: " + av_text(rc);
      return false;
    }
    av_packet_rescale_ts(packet_, enc_->time_base, stream_->time_base);
    packet_->stream_index = stream_->index;
    rc = av_interleaved_write_frame(fmt_, packet_);  // takes the packet's data
    if (rc < 0) {
      *error = "cannot write the video (" + av_text(rc) + ")";
      return false;
    }
  }
}

bool Mp4Sink::write(const Image& img, std::string* error) {
  int rc = av_frame_make_writable(frame_);
  if (rc < 0) {
    *error = av_text(rc);
    return false;
  }
  // Image::rgba is 0xAABBGGRR a pixel: the bytes R, G, B, A in memory.
  const uint8_t* src[1] = {reinterpret_cast<const uint8_t*>(img.rgba.data())};
  const int stride[1] = {img.width * 4};
  sws_scale(sws_, src, stride, 0, img.height, frame_->data, frame_->linesize);
  frame_->pts = next_pts_++;
  return encode(frame_, error);
}

bool Mp4Sink::close(std::string* error) {
  if (!encode(nullptr, error)) return false;
  int rc = av_write_trailer(fmt_);
  if (rc >= 0 && fmt_->pb->error < 0) rc = fmt_->pb->error;
  const int closed = avio_closep(&fmt_->pb);
  file_open_ = false;
  if (rc >= 0) rc = closed;
  if (rc < 0) {
    *error = "cannot write the video (" + av_text(rc) + ")";
    return false;
  }
  return true;
}

void Mp4Sink::release() {
  if (fmt_ && file_open_) avio_closep(&fmt_->pb);
  file_open_ = false;
  sws_freeContext(sws_);
  sws_ = nullptr;
  av_frame_free(&frame_);
  av_packet_free(&packet_);
  avcodec_free_context(&enc_);
  avformat_free_context(fmt_);
  fmt_ = nullptr;
}

}  // namespace

bool mp4_available(std::string* why) {
  if (!h264_encoders().empty()) return true;
  if (why)
    *why = "this FFmpeg (libavcodec " LIBAVCODEC_IDENT
           ") has no H.264 encoder: write PNG frames instead (--video DIR/)";
  return false;
}

std::unique_ptr<FrameSink> open_mp4_sink(const std::string& path, int width, int height, int fps,
                                         std::string* description, std::string* error) {
  // FFmpeg's own log (libx264's statistics, the muxer's notes, its errors) stays quiet: a failure
  // reaches the user as the one line the program prints.
  av_log_set_level(AV_LOG_QUIET);
  auto sink = std::make_unique<Mp4Sink>();
  if (!sink->open(path, width, height, fps, description, error)) return nullptr;
  return sink;
}

}  // namespace pr
