// Temporaries that an interrupted run removes, and those of dead runs that the next one removes.
//
// rbdref writes every output through a temporary beside it (files.hpp: NAME.tmp.PID, then rename)
// and multi-file results through a staging folder (staging.hpp: .rbdref-stage.PID). While they
// exist they are registered here. install_interrupt_cleanup() (main, before any thread starts)
// blocks SIGINT, SIGTERM and SIGHUP in every thread and waits for them in one thread of its own;
// there, outside any signal handler, it removes what is registered (files, and folders with their
// contents) and ends the process by the same signal, its default action restored (the shell sees
// an interrupted command, status 128 + N). SIGKILL cannot be caught: what it leaves behind has
// the dead process's id in its name, and remove_stale_temporaries() removes it on the next run
// that writes there (a PID that is alive, whoever it belongs to, is left alone).
//
// Child processes (an engine run through Node.js) must not inherit the blocked mask:
// unblocked_signal_mask() is the mask to give them (posix_spawnattr_setsigmask).
#pragma once

#include <csignal>
#include <string>

namespace rbd {

void install_interrupt_cleanup();

// A file or folder to remove if the process is interrupted, until forget_temporary(path).
void register_temporary(const std::string& path);
void forget_temporary(const std::string& path);
// A folder this run made for its outputs: removed on interruption if it is empty by then (after
// the temporaries), until forget_made_folder(path).
void register_made_folder(const std::string& path);
void forget_made_folder(const std::string& path);

// In `folder`, every entry named PREFIX + PID (PID decimal digits, nothing after them) whose
// process no longer exists: removed (a folder with its contents). Errors are ignored: this is
// housekeeping, never a reason to fail.
void remove_stale_temporaries(const std::string& folder, const std::string& prefix);

// The signal mask without the signals install_interrupt_cleanup() blocks.
sigset_t unblocked_signal_mask();

}  // namespace rbd
