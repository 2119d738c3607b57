// The table of the point-cloud formats the program knows: each one's name, extensions, how its
// content is recognised, what reads it and what writes it. Loading (engine/io/load.h), --info,
// conversion (engine/io/convert.h, --convert) and the viewer's Open box take what they know of
// formats from here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace pr {

namespace io {
struct Input;
struct Output;
}  // namespace io

/// The loader's readers: a file's format as its content says it.
enum class FileFormat { kUnknown, kPly, kLas, kLaz, kPcd, kPts, kXyz, kE57 };

/// What a conversion (engine/io/convert.h) writes to an output named with a format's extension.
enum class ConvertOutput { kNone, kLas, kLaz, kCopc };

/// One format of the table.
struct FormatEntry {
  /// As --info and messages name it: "PLY", "LAS", "LAZ", "COPC", "PCD", "PTS", "XYZ", "E57",
  /// "VPC".
  const char* name;
  /// Lower case, with the dot (".ply"; ".copc.laz"); a name matches the longest that ends it.
  std::span<const char* const> extensions;
  /// The reader of its files: COPC's is LAZ's (a COPC file is a LAZ file whose chunks are an
  /// octree's nodes); kUnknown for a survey (.vpc), which lists files and is never read whole.
  FileFormat format;
  /// True when the bytes start as this format's files do (its magic, its header); null for
  /// headerless text and surveys. COPC's is LAZ's: content tells them apart no further.
  bool (*signature)(const uint8_t* data, size_t size);
  /// The whole-file reader (laz_file.h and formats/readers.h); null for a survey.
  bool (*read)(const io::Input& in, io::Output& out, std::string* error);
  /// What --convert writes to a file with this extension.
  ConvertOutput write;
  /// Opened by streaming by level of detail (engine/io/stream.h) rather than read whole.
  bool streams;
  /// Why a file with this extension that is not of this format is refused ("not a PCD file:
  /// ..."); null for text, which has nothing to be missing.
  const char* refusal;

  /// A survey: a list of files that stream (.vpc), never read whole.
  bool survey() const { return streams && !read; }
};

/// Every format, signatures first in the order detection tries them.
std::span<const FormatEntry> formats();

/// The entry whose extension ends `path` (case-insensitive, the longest one: "x.copc.laz" is
/// COPC, "x.laz" LAZ); null when none does, or when the name is the extension alone.
const FormatEntry* find_format_by_path(const std::string& path);

/// The entry of a reader's format (kLaz: LAZ's, not COPC's); null for kUnknown.
const FormatEntry* find_format(FileFormat format);

/// Name of a reader's format as --info prints it ("PLY", "LAS", ...; "unknown").
const char* format_name(FileFormat f);

/// The format the first bytes of a file say, by the signatures alone (magic numbers, headers);
/// kUnknown for text and anything else.
FileFormat detect_format(const void* data, size_t size);

/// The format of a file from its first bytes and, for headerless text, its name: a signature
/// wins over the extension; a file named as a format with a signature but without it is
/// kUnknown (broken, not text); text is PTS when named so or when its first line is a lone count,
/// else XYZ. Binary garbage with no known signature is kUnknown.
FileFormat detect_format(const void* data, size_t size, const std::string& name);

/// Why `name` holding these bytes is read by no reader (detect_format() gave kUnknown): its
/// extension's refusal, or "unknown file format (not PLY, LAS, ...)" listing the table's formats.
std::string unknown_format_message(const std::string& name);

/// True for a file name the program opens (any extension of the table: every format read whole,
/// COPC files and .vpc surveys): what a file browser lists.
bool is_point_cloud_file(const std::string& name);

/// True for a file name a folder survey takes as a tile (engine/io/survey.h): a format that
/// streams and is read from a file of its own (COPC, "*.copc.laz").
bool is_tile_file(const std::string& name);

/// The extensions --convert writes, for messages: ".copc.laz (COPC), .laz, .las".
std::string convert_suffixes();

}  // namespace pr
