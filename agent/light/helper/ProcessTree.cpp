#include "agent/light/helper/ProcessTree.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace runbox::light {

bool ProcessTree::readFile(const std::string& path, std::string* out) {
    out->clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(fd, buffer, sizeof(buffer));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            ::close(fd);
            return got == 0;
        }
        out->append(buffer, static_cast<std::size_t>(got));
    }
}

std::vector<pid_t> ProcessTree::children(pid_t pid) {
    std::vector<pid_t> result;
    const std::string taskDir = "/proc/" + std::to_string(pid) + "/task";
    DIR* dir = ::opendir(taskDir.c_str());
    if (!dir)
        return result;
    std::string text;
    while (dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
            continue;
        if (!readFile(taskDir + "/" + entry->d_name + "/children", &text))
            continue;
        const char* p = text.c_str();
        while (*p) {
            char* end = nullptr;
            const long child = std::strtol(p, &end, 10);
            if (end == p)
                break;
            if (child > 0)
                result.push_back(static_cast<pid_t>(child));
            p = end;
        }
    }
    ::closedir(dir);
    return result;
}

std::vector<pid_t> ProcessTree::descendants(pid_t pid) {
    std::vector<pid_t> result = children(pid);
    for (std::size_t i = 0; i < result.size() && result.size() < 100000; ++i) {
        for (pid_t grandchild : children(result[i]))
            result.push_back(grandchild);
    }
    return result;
}

bool ProcessTree::isDead(pid_t pid) {
    std::string stat;
    if (!readFile("/proc/" + std::to_string(pid) + "/stat", &stat))
        return true;
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size())
        return true;
    const char state = stat[close + 2];
    return state == 'Z' || state == 'X' || state == 'x';
}

bool ProcessTree::killDescendants(pid_t root, int maxRounds, bool reapOwnChildren) {
    for (int round = 0; round < maxRounds; ++round) {
        if (reapOwnChildren) {
            while (::waitpid(-1, nullptr, WNOHANG) > 0) {
            }
        }
        bool anyAlive = false;
        for (pid_t pid : descendants(root)) {
            if (isDead(pid))
                continue;
            anyAlive = true;
            ::kill(pid, SIGKILL);
        }
        if (!anyAlive)
            return true;
        // Give the killed processes a moment to exit (and their orphans to reparent).
        if (round < 3) {
            ::sched_yield();
        } else {
            timespec pause{0, 1000000}; // 1 ms
            ::nanosleep(&pause, nullptr);
        }
    }
    return false;
}

} // namespace runbox::light
