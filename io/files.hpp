// Files: reading a whole text file, atomic writes of outputs (optionally gzip-compressed), and the
// checks on output paths (regular files only, distinct from the inputs and from each other).
#pragma once

#include "io/input_error.hpp"

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace rbd {

// The bound on an input document, as read and after gzip decompression, by what the document can
// legitimately be (docs/formats.md, "Inputs are bounded"): the environment's RBDREF_MAX_INPUT_BYTES
// for every kind when it is set (a positive integer; anything else is InputError), else
//   kLargeInput   1 GiB    fixtures, engine outputs, audit.json, baselines (n² values per sample)
//   kModelInput   64 MiB   models (a 10⁴-body URDF is ~5 MB)
//   kSmallInput   16 MiB   states, loops and contacts files, manifests (n values)
constexpr std::size_t kLargeInput = std::size_t(1) << 30, kModelInput = std::size_t(64) << 20, kSmallInput = std::size_t(16) << 20;
std::size_t max_input_bytes(std::size_t kind_bound = kLargeInput);

// Reads a whole text file; InputError if it cannot be read, if its name is not UTF-8, if it is not
// a regular file (a FIFO, device or socket is refused at once), or if it is larger than
// max_input_bytes(kind_bound).
std::string read_text_file(const std::string& path, std::size_t kind_bound = kLargeInput);
// The checks of read_text_file before it reads (the name, a regular file, its size), for readers
// that read the file as they parse it (read_json_file); returns max_input_bytes(kind_bound), the
// bound to keep while reading.
std::size_t check_input_file(const std::string& path, std::size_t kind_bound = kLargeInput);

// Writes `content` to `path` atomically: a temporary file in the same folder, then rename.
// Throws InputError on failure, leaving no partial file behind and the old file untouched.
// Outputs go only to regular files: a symbolic link, device, FIFO, folder or read-only file at
// `path` is refused (check_output_path), as is a missing folder.
void write_file_atomic(const std::string& path, const std::string& content);
// The same for what `write` puts into the stream (a document too large to hold as one string); an
// exception from `write`, or a write error, leaves no file behind and the old one untouched. With
// `gzip` the stream is gzip-compressed on its way to the file.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write, bool gzip = false);
// `path` "-" is standard output, for every output: the document is written to it whole and
// flushed, and a failed or short write (a full disk, a closed descriptor, a reader gone: SIGPIPE is
// ignored) is InputError naming "standard output".
// The checks of write_file_atomic alone, for commands to run on every output before writing any
// ("-" passes).
void check_output_path(const std::string& path);
// The part of check_output_path that needs nothing to exist yet, for outputs in folders a command
// makes: a file name (not ending in '/'), short enough for the file system with the temporary's
// suffix, and no folder name on the way longer than NAME_MAX.
void check_output_name(const std::string& path);

// Flushes standard output; InputError("standard output", …) when anything written to it was lost.
void flush_stdout_or_throw();

// One command's outputs, moved into place together when it has succeeded. While one is open
// (cli/main.cpp opens one around every command), write_file_atomic leaves each finished file
// beside its path as its temporary, and StagedFolder::commit leaves its finished stage beside its
// folder; commit() moves them into place in the order they were written, after the command has
// flushed standard output, so that a failure anywhere (standard output full or closed included)
// leaves no output: the destructor without commit() removes them all. Writes into a staging
// folder are not deferred (the stage is moved as a whole). One at a time per process.
class OutputCommit {
 public:
  OutputCommit();
  ~OutputCommit();
  OutputCommit(const OutputCommit&) = delete;
  OutputCommit& operator=(const OutputCommit&) = delete;
  void commit();

  // For the writers: whether an output at `path` waits for the commit, and the deferral itself
  // (`move` puts it in place, `discard` removes it; `key` the final path: a later output to the
  // same path replaces the earlier one's entry).
  static bool defers(const std::string& path);
  static void defer(const std::string& key, std::function<void()> move, std::function<void()> discard);
  // A staging folder (StagedFolder) whose files are written in place, from its making to its move.
  static void add_staging_folder(const std::string& stage);
  static void remove_staging_folder(const std::string& stage);
};

// mkdir -p: creates path and its missing parents; InputError naming path when a part is not a
// folder or cannot be made.
void make_dir(const std::string& path);
// Whether anything (file, folder, link target) exists at path.
bool file_exists(const std::string& path);

// Refuses (InputError naming the option) an output path that is one of the inputs or another
// output, compared after resolving links and relative paths. outputs: (option, path); "" is
// skipped, and at most one output may be "-" (standard output).
void check_distinct_paths(const std::vector<std::string>& inputs, const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace rbd
