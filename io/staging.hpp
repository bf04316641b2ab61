// A multi-file output that appears whole or not at all (audit's --out folder, hunt's reproducers).
//
// The files are written into a staging folder ROOT/.rbdref-stage.PID under the names they will
// have (path() maps ROOT/a/b.json to ROOT/.rbdref-stage.PID/a/b.json; documents keep naming the
// final paths). commit() checks every final path first (check_output_path: a read-only file, a
// folder or a link where a file goes stops it before anything is replaced), then renames each
// file into place (the folders made as needed) and removes the stage. Without commit() (an
// error, an exception) the destructor removes the stage, and ROOT too when this made it and it is
// empty: an exit 2 leaves nothing behind. The stage is registered with cleanup.hpp, so an
// interrupted run removes it; a stage of a dead process is removed by the next StagedFolder on
// the same ROOT.
#pragma once

#include <string>
#include <vector>

namespace rbd {

class StagedFolder {
 public:
  explicit StagedFolder(std::string root);
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  // Where to write `final_path`: in the stage when it is under root, unchanged otherwise.
  std::string path(const std::string& final_path) const;
  // Makes the stage folder of `final_folder` (under root) and returns it.
  std::string make_folder(const std::string& final_folder) const;
  void commit();

  const std::string& root() const { return root_; }

 private:
  std::string root_, stage_;
  std::vector<std::string> made_;  // folders this made on the way to root (innermost last)
  bool committed_ = false;
};

}  // namespace rbd
