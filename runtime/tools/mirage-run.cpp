//===- mirage-run.cpp - Runs, checks and times bundles --------------------===//
//
// Part of the Mirage MLIR project.
//
// mirage-run [options] BUNDLE_DIR...: runs every bundle on one GPU, prints a
// line per bundle on stderr and the results as JSON (runtime/README.md).
// Exits with 1 when a bundle failed its check or could not run, 2 on a
// usage error.
//
// The bundles run in a worker process that streams its results back as JSON
// lines. A fault in a kernel leaves CUDA unusable for the rest of a process,
// and a crash ends it: either way the next bundles go on in a new worker.
// The main process never initializes CUDA, so it can fork workers.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Manifest.h"
#include "mirage_runtime/Runner.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace mirage::runtime;

static const char *const usage =
    "usage: mirage-run [options] BUNDLE_DIR...\n"
    "  --device N         GPU ordinal (default 0)\n"
    "  --seed N           input seed instead of the manifest's (the\n"
    "                     reference check is skipped unless they agree)\n"
    "  --inputs DIR       read input i from DIR/input<i>.bin (raw elements;\n"
    "                     the reference check is skipped)\n"
    "  --no-check         do not compare with the reference\n"
    "  --no-time          do not time\n"
    "  --warmup N         replays before timing (default 3)\n"
    "  --replays N        timed replays (default 20)\n"
    "  --modes LIST       how to launch the timed runs, timed in turn:\n"
    "                     graph (a CUDA graph), plain (stream launches),\n"
    "                     pdl (a CUDA graph with programmatic dependent\n"
    "                     launch); default graph\n"
    "  --deadline-ms N    mega-kernels: abandon a run whose wait takes\n"
    "                     longer (0: never; default: the manifest's)\n"
    "  --json FILE        write the results there (default: stdout), anew\n"
    "                     after each bundle: a run cut short keeps the\n"
    "                     bundles it finished\n"
    "  --dump-outputs DIR write output k to DIR/<bundle name>/output<k>.bin\n";

namespace {

struct Options {
  int device = 0;
  RunOptions run;
  std::string jsonFile;
  std::vector<std::string> bundles;
};

template <typename T>
bool parseNumber(const std::string &text, T &out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

/// Parses the command line; errors are messages for stderr.
Expected<Options> parseArguments(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      options.bundles.push_back(arg);
      continue;
    }
    // --name=value or --name value.
    std::string name = arg, value;
    bool hasValue = false;
    if (size_t equals = arg.find('='); equals != std::string::npos) {
      name = arg.substr(0, equals);
      value = arg.substr(equals + 1);
      hasValue = true;
    }
    auto flag = [&](bool &field, bool setting) -> Status {
      if (hasValue)
        return Status::error(name + " takes no value");
      field = setting;
      return Status::success();
    };
    auto takeValue = [&]() -> Status {
      if (hasValue)
        return Status::success();
      if (i + 1 >= argc)
        return Status::error(name + " needs a value");
      value = argv[++i];
      return Status::success();
    };
    auto number = [&](auto &field) -> Status {
      if (Status status = takeValue(); !status.ok())
        return status;
      if (!parseNumber(value, field))
        return Status::error(name + ": invalid number \"" + value + "\"");
      return Status::success();
    };

    Status status = Status::success();
    if (name == "--help" || name == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (name == "--device") {
      status = number(options.device);
    } else if (name == "--seed") {
      uint64_t seed = 0;
      status = number(seed);
      options.run.seed = seed;
    } else if (name == "--inputs") {
      status = takeValue();
      options.run.inputsDir = value;
    } else if (name == "--no-check") {
      status = flag(options.run.check, false);
    } else if (name == "--no-time") {
      status = flag(options.run.time, false);
    } else if (name == "--warmup") {
      status = number(options.run.warmup);
    } else if (name == "--replays") {
      status = number(options.run.replays);
      if (status.ok() && options.run.replays == 0)
        status = Status::error("--replays must be at least 1");
    } else if (name == "--modes") {
      status = takeValue();
      if (status.ok()) {
        Expected<std::vector<TimingMode>> modes = parseTimingModes(value);
        if (modes)
          options.run.modes = std::move(*modes);
        else
          status = Status::error("--modes: " + modes.message());
      }
    } else if (name == "--deadline-ms") {
      uint64_t deadline = 0;
      status = number(deadline);
      // Nanoseconds must fit the kernel's 64-bit deadline word.
      if (status.ok() && deadline > UINT64_MAX / 1000000)
        status = Status::error("--deadline-ms: " + value + " is too large");
      options.run.deadlineMs = deadline;
    } else if (name == "--json") {
      status = takeValue();
      options.jsonFile = value;
    } else if (name == "--dump-outputs") {
      status = takeValue();
      options.run.dumpDir = value;
    } else {
      status = Status::error("unknown option " + name);
    }
    if (!status.ok())
      return status;
  }
  if (options.bundles.empty())
    return Status::error("no bundle directory given");
  return options;
}

/// The exit status of a worker that lost its CUDA context.
constexpr int contextLostExit = 3;

Status writeAll(int fd, const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t count = write(fd, text.data() + done, text.size() - done);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return Status::error(std::string("write to the main process: ") +
                           std::strerror(errno));
    done += size_t(count);
  }
  return Status::success();
}

/// Runs bundles[first..] and writes one JSON object per line to `fd`:
/// {"device": ...} and then {"result": ...} per bundle, or
/// {"setup_error": ...} when there is no usable GPU.
int runWorker(const Options &options, size_t first, int fd) {
  auto send = [&](const char *key, JsonValue value) {
    JsonValue line = JsonValue::Object();
    line.set(key, std::move(value));
    return writeAll(fd, writeJson(line, 0) + "\n");
  };
  Expected<std::unique_ptr<Runner>> runner = Runner::create(options.device);
  if (!runner)
    return send("setup_error", runner.message()).ok() ? 0 : 1;
  if (!send("device", toJson((*runner)->deviceInfo())).ok())
    return 1;
  for (size_t i = first; i < options.bundles.size(); ++i) {
    BundleResult result = (*runner)->run(options.bundles[i], options.run);
    std::fprintf(stderr, "%s\n", summaryLine(result).c_str());
    if (!send("result", toJson(result)).ok())
      return 1;
    if ((*runner)->contextLost())
      return contextLostExit;
  }
  return 0;
}

std::string describeExit(int status) {
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

/// The results of all bundles, run by as many workers as it takes.
struct Supervisor {
  const Options &options;
  JsonValue device;
  JsonValue::Array results;
  bool allOk = true;

  void add(const BundleResult &result) {
    std::fprintf(stderr, "%s\n", summaryLine(result).c_str());
    allOk &= result.ok();
    results.push_back(toJson(result));
    saveProgress();
  }

  /// The device and the results so far, as the output JSON.
  std::string getJson() const {
    JsonValue output = JsonValue::Object();
    output.set("device", device);
    output.set("results", results);
    return writeJson(output) + "\n";
  }

  /// With --json, the results so far to the file.
  void saveProgress() const {
    if (options.jsonFile.empty())
      return;
    std::string text = getJson();
    if (Status status = writeFile(options.jsonFile, text.data(), text.size());
        !status.ok())
      std::fprintf(stderr, "mirage-run: %s\n", status.message().c_str());
  }

  Status runAll() {
    size_t next = 0;
    while (next < options.bundles.size()) {
      int fds[2];
      if (pipe(fds) != 0)
        return Status::error(std::string("pipe: ") + std::strerror(errno));
      std::fflush(stdout);
      std::fflush(stderr);
      pid_t pid = fork();
      if (pid < 0)
        return Status::error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        close(fds[0]);
        int code = runWorker(options, next, fds[1]);
        std::fflush(stderr);
        _exit(code);
      }
      close(fds[1]);

      size_t first = next;
      std::string setupError;
      std::FILE *in = fdopen(fds[0], "r");
      char *line = nullptr;
      size_t capacity = 0;
      ssize_t length;
      while (in && (length = getline(&line, &capacity, in)) > 0) {
        Expected<JsonValue> message =
            parseJson(std::string_view(line, size_t(length)));
        if (!message)
          continue;
        if (const JsonValue *info = message->get("device")) {
          if (device.isNull())
            device = *info;
        } else if (const JsonValue *result = message->get("result")) {
          const JsonValue *ok = result->get("ok");
          allOk &= ok && ok->isBool() && ok->getBool();
          results.push_back(*result);
          saveProgress();
          ++next;
        } else if (const JsonValue *error = message->get("setup_error")) {
          setupError = error->getString();
        }
      }
      std::free(line);
      if (in)
        std::fclose(in);
      else
        close(fds[0]);
      int status = 0;
      waitpid(pid, &status, 0);

      if (!setupError.empty()) {
        std::fprintf(stderr, "mirage-run: %s\n", setupError.c_str());
        // Still one entry per bundle, so that scripts see what did not run.
        for (; next < options.bundles.size(); ++next)
          add(makeBundleResult(options.bundles[next], "no GPU: " + setupError));
        break;
      }
      bool lostContext =
          WIFEXITED(status) && WEXITSTATUS(status) == contextLostExit;
      bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      // A worker that stopped otherwise died running bundles[next].
      if (next < options.bundles.size() &&
          (next == first || (!lostContext && !finished)))
        add(makeBundleResult(options.bundles[next++],
                             "the worker process running it " +
                                 describeExit(status)));
    }
    return Status::success();
  }
};

} // namespace

int main(int argc, char **argv) {
  Expected<Options> options = parseArguments(argc, argv);
  if (!options) {
    std::fprintf(stderr, "mirage-run: %s\n%s", options.message().c_str(),
                 usage);
    return 2;
  }

  Supervisor supervisor{*options, JsonValue(), {}, true};
  if (Status status = supervisor.runAll(); !status.ok()) {
    std::fprintf(stderr, "mirage-run: %s\n", status.message().c_str());
    return 2;
  }
  std::string text = supervisor.getJson();
  if (options->jsonFile.empty()) {
    std::fputs(text.c_str(), stdout);
  } else if (Status status =
                 writeFile(options->jsonFile, text.data(), text.size());
             !status.ok()) {
    std::fprintf(stderr, "mirage-run: %s\n", status.message().c_str());
    return 1;
  }
  return supervisor.allOk ? 0 : 1;
}
