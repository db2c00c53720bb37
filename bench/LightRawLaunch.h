#pragma once
// The raw cost any uid + Landlock launcher pays per command, shared by bench_light_host and
// bench_light_pool so both compare against the same baseline: fork, a Landlock ruleset with the
// rules a light workspace gets, setgroups/setresgid/setresuid, landlock_restrict_self (which sets
// nothing else: NO_NEW_PRIVS is required and set by LandlockRuleset), execve `true`, waitpid.
// Needs root.

#include "agent/light/helper/LandlockRuleset.h"

#include <QDir>
#include <QElapsedTimer>

#include <cstdio>
#include <grp.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace lightbench {

/// One raw launch of `true` as @p uid confined to @p home; wall time in ms (waited for).
inline double rawLaunchMs(const QByteArray& home, uid_t uid) {
    using namespace runbox::light;
    QElapsedTimer timer;
    timer.start();
    const pid_t child = ::fork();
    if (child == 0) {
        LandlockRuleset ruleset;
        std::string why;
        bool ok = ruleset.create(LandlockRuleset::probeAbi(), true, &why);
        for (const char* path : {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt"})
            ok = ok && ruleset.allowPath(path, rights::kReadExecute, true, &why);
        for (const char* path : {"/etc", "/sys", "/proc"})
            ok = ok && ruleset.allowPath(path, rights::kReadOnly, true, &why);
        for (const char* path : {"/dev/null", "/dev/zero", "/dev/urandom"})
            ok = ok && ruleset.allowPath(path, rights::kDeviceReadWrite, true, &why);
        ok = ok && ruleset.allowPath(home.constData(), rights::kEverything, false, &why);
        ok = ok && ::setgroups(0, nullptr) == 0 && ::setresgid(uid, uid, uid) == 0 &&
             ::setresuid(uid, uid, uid) == 0 && ruleset.restrictSelf(&why);
        if (!ok)
            ::_exit(126);
        char* argv[] = {const_cast<char*>("true"), nullptr};
        char* envp[] = {const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
        ::execve("/usr/bin/true", argv, envp);
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    if (status != 0)
        std::fprintf(stderr, "raw launch failed: %d\n", status);
    return timer.nsecsElapsed() / 1e6;
}

/// @p count raw launches in a scratch home @p home (created, owned by @p uid, removed after).
inline std::vector<double> rawLaunches(const QString& home, uid_t uid, int count) {
    const QByteArray path = home.toLocal8Bit();
    QDir().mkpath(home);
    if (::chown(path.constData(), uid, uid) != 0)
        std::fprintf(stderr, "cannot chown %s\n", path.constData());
    std::vector<double> samples;
    for (int i = 0; i < count; ++i)
        samples.push_back(rawLaunchMs(path, uid));
    QDir(home).removeRecursively();
    return samples;
}

} // namespace lightbench
