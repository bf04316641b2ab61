// rbdref: reference values for rigid-body dynamics, with the digits that are certified.
// Exit status: 0 ok, 1 discrepancies found, 2 bad input (message names file, field, expectation).
#include "io/cleanup.hpp"
#include "io/files.hpp"
#include "cli/commands.hpp"
#include "io/io_util.hpp"
#include "reference/numeric/mpfr_block_cache.hpp"

#include <climits>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <new>
#include <csignal>
#include <string>
#include <utility>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace {

// The heap policy of the command (glibc): one arena, no chunk of its own mapping, freed memory kept.
// A large model's sample allocates its dense n × n matrices (a 2000-body chain: ~1.5 GB at bin50
// and bin100) and frees them; with glibc's defaults each such block has its own mmap (as has any
// block of a worker thread's arena above 64 MB), so every sample would fault its pages in afresh.
// Figures in docs/benchmarks.md ("Sixth pass"). A user's own GLIBC_TUNABLES for malloc is left as
// given.
void keep_freed_memory() {
#ifdef __GLIBC__
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.")) return;
  mallopt(M_ARENA_MAX, 1);             // worker threads share the main heap (which grows without bound)
  mallopt(M_MMAP_MAX, 0);              // no block gets a mapping of its own
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // freed memory stays for the next sample
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();  // before any thread starts
  // A reader that goes away (| head) makes writes fail with EPIPE, reported as exit 2, instead
  // of killing the process with a signal.
  std::signal(SIGPIPE, SIG_IGN);
  // SIGINT, SIGTERM, SIGHUP: the temporaries and staging folders of this run removed, then the
  // process ends by the signal (io/cleanup.hpp). Before any thread starts: they inherit the mask.
  rbd::install_interrupt_cleanup();
  rbd::install_mpfr_block_cache();  // MPFR's temporaries without a malloc each (reference/numeric/mpfr_block_cache.hpp)
  CLI::App app{"rbdref: reference values for rigid-body dynamics engines, with certified digits"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rbdref 0.1.0");
  const std::vector<std::pair<std::string, rbd::cli::Run>> commands = {
      {"eval", rbd::cli::add_eval(app)},       {"convert", rbd::cli::add_convert(app)},
      {"fixture", rbd::cli::add_fixture(app)}, {"upgrade", rbd::cli::add_upgrade(app)}, {"compare", rbd::cli::add_compare(app)},
      {"check", rbd::cli::add_check(app)},     {"audit", rbd::cli::add_audit(app)},
      {"assemble", rbd::cli::add_assemble(app)}, {"simulate", rbd::cli::add_simulate(app)},
      {"engines", rbd::cli::add_engines(app)}, {"html", rbd::cli::add_html(app)}, {"hunt", rbd::cli::add_hunt(app)},
      {"merge", rbd::cli::add_merge(app)}};
  // A first argument that is no option and no command: CLI11 would say "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const auto& c : commands) known = known || c.first == argv[1];
    if (!known) {  // the list from the table above, so that it names every command
      std::string expected;
      for (std::size_t i = 0; i < commands.size(); ++i)
        expected += (i == 0 ? "" : i + 1 == commands.size() ? " or " : ", ") + commands[i].first;
      std::cerr << "rbdref: error: unknown command '" << argv[1] << "' (expected " << expected << ")\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // the same form as every other bad input
    std::cerr << "rbdref: error: " << e.what() << " (rbdref --help, rbdref COMMAND --help)\n";
    return 2;
  }
  try {
    for (const auto& [name, run] : commands)
      if (app.got_subcommand(name)) {
        // The command's files are moved into place only after it ended and its standard output
        // was flushed: a failure anywhere, standard output included, leaves no output (files.hpp).
        rbd::OutputCommit outputs;
        const int status = run();
        rbd::flush_stdout_or_throw();  // an output lost on standard output is not a success
        outputs.commit();
        return status;
      }
  } catch (const rbd::InputError& e) {
    std::cerr << "rbdref: error: " << e.what() << "\n";
    return 2;
  } catch (const rbd::ModelError& e) {  // a model problem met past the loader (a precision's range)
    std::cerr << "rbdref: error: " << (e.file().empty() ? "model" : e.file()) << ": " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {  // past the memory guard and the input bounds: a limit set lower still
    std::cerr << "rbdref: error: out of memory: the input or the model needs more memory than this process may have "
                 "(ulimit -v, the container's limit); lower RBDREF_MAX_INPUT_BYTES or --max-memory so that rbdref refuses "
                 "it up front, or give the process more memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rbdref: internal error: " << e.what() << "\n";
    return 3;
  }
  return 2;
}
