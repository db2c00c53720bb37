// runbox-light-supervisor: the light tier's zygote and per-workspace supervisors (one binary,
// no Qt). Started only by the agent:
//   runbox-light-supervisor --zygote --fd N --parent PID --uid-min U --uid-max U --root DIR
//                           [--pid-namespace] [--private-proc] [--read-execute PATH]...
//                           [--environment-root DIR] [--mask PATH]...
#include "agent/light/helper/WorkspaceMounts.h"
#include "agent/light/helper/Zygote.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool parseNumber(const char* text, unsigned long max, unsigned long* out) {
    char* end = nullptr;
    errno = 0;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (errno || end == text || *end || value > max)
        return false;
    *out = value;
    return true;
}

} // namespace

int main(int argc, char** argv) {
    runbox::light::ZygoteConfig config;
    bool zygote = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        unsigned long number = 0;
        if (arg == "--zygote") {
            zygote = true;
        } else if (arg == "--pid-namespace") {
            config.pidNamespace = true;
        } else if (arg == "--private-proc") {
            config.privateProc = true;
        } else if (arg == "--fd" && hasValue && parseNumber(argv[++i], 1 << 20, &number)) {
            config.agentFd = static_cast<int>(number);
        } else if (arg == "--parent" && hasValue && parseNumber(argv[++i], 1u << 30, &number)) {
            config.parentPid = static_cast<pid_t>(number);
        } else if (arg == "--uid-min" && hasValue &&
                   parseNumber(argv[++i], 0xfffffffeul, &number)) {
            config.uidMin = static_cast<uid_t>(number);
        } else if (arg == "--uid-max" && hasValue &&
                   parseNumber(argv[++i], 0xfffffffeul, &number)) {
            config.uidMax = static_cast<uid_t>(number);
        } else if (arg == "--root" && hasValue) {
            config.root = argv[++i];
        } else if (arg == "--read-execute" && hasValue) {
            config.extraReadExecute.emplace_back(argv[++i]);
        } else if (arg == "--environment-root" && hasValue && argv[i + 1][0] == '/' &&
                   std::strstr(argv[i + 1], "/..") == nullptr) {
            config.environmentRoot = argv[++i];
        } else if (arg == "--mask" && hasValue &&
                   runbox::light::WorkspaceMounts::validMaskedPath(argv[i + 1])) {
            config.maskedInterpreters.emplace_back(argv[++i]);
        } else {
            std::fprintf(stderr, "runbox-light-supervisor: bad argument %s\n", arg.c_str());
            return 2;
        }
    }
    if (!zygote || config.uidMin < 1000 || config.uidMax < config.uidMin || config.root.empty() ||
        config.root[0] != '/') {
        std::fprintf(stderr, "runbox-light-supervisor: started only by runbox-agent (--zygote, "
                             "--uid-min ≥ 1000, --uid-max, --root ABSOLUTE)\n");
        return 2;
    }
    return runbox::light::Zygote::run(config);
}
