// A multi-file output that replaces its folder as a whole (audit's --out folder, hunt's
// reproducers): a reader finds the old folder or the new one, never a mix.
//
// The files are written into a staging folder beside ROOT, PARENT/.NAME.rbdref-stage.PID, under
// the names they will have (path() maps ROOT/a/b.json to the stage's a/b.json; documents keep
// naming the final paths). commit() marks the stage as rbdref's (a file .rbdref-output in it) and
// puts it in ROOT's place in one step: a rename when ROOT does not exist, else an exchange of the
// two names (renameat2 RENAME_EXCHANGE) after which the old folder, now under the stage's name,
// is removed. On a file system without the exchange, ROOT is renamed aside first: for that moment
// there is no ROOT, never a mixed one. While an OutputCommit is open (cli/main.cpp: every
// command), commit() hands the finished stage to it and the swap happens when the command ends.
//
// ROOT is replaced, not merged into, so only a folder that rbdref may replace is taken: one that
// does not exist, is empty, or holds an earlier output (.rbdref-output, or an audit.json written
// before that marker existed). Any other folder, the current folder or one of its parents, and
// "/" are refused by the constructor, before any work. Without commit() (an error, an exception)
// the destructor removes the stage and the folders it made on the way to PARENT: an exit 2 leaves
// nothing behind. The stage is registered with cleanup.hpp (an interrupted run removes it); a
// stage of a dead process is removed by the next StagedFolder on the same ROOT.
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
  // The stage in root's place: when the command ends if an OutputCommit is open (WithTheCommand),
  // or at once (Now: a hunt's reproducers, each kept as it is found, so that an interrupted hunt
  // keeps what it found).
  enum class When { WithTheCommand, Now };
  void commit(When when = When::WithTheCommand);

  const std::string& root() const { return root_; }

 private:
  std::string root_, stage_;
  std::vector<std::string> made_;  // folders this made on the way to root's parent (innermost last)
  bool handed_over_ = false;
};

// The name of the marker file in every folder a StagedFolder commits.
extern const char* const kOutputMarker;

}  // namespace rbd
