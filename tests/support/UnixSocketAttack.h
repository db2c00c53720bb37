#pragma once

#include <QString>

namespace runbox::testsupport {

/// Python that fills unix socket buffers, kernel memory no process's RSS shows (docs/bounds.md
/// "Unix socket buffers"): @p pairs socketpairs in @p mode, then sleeps @p waitS s (so only a
/// bound ends it). "open": both directions filled, all ends kept. "closed": a send buffer of
/// 512 KiB (the kernel doubles it) filled one way, then the writer closed (what it wrote stays
/// queued at the reader, charged to a socket no longer listed). "inflight": both directions
/// filled, both ends sent in SCM_RIGHTS into a carrier socket and closed. Prints "filled N" and
/// creates the file `filled` in its working directory once filled.
inline QString unixSocketAttack(int pairs, const QString& mode, int waitS) {
    return QStringLiteral(R"(
import socket, sys, time
pairs, mode, wait = %1, '%2', %3
keep, carriers, batch = [], [], []
def fill(s):
    s.setblocking(False)
    try:
        while True: s.send(b'x' * 65536)
    except BlockingIOError: pass
for i in range(pairs):
    a, b = socket.socketpair()
    if mode == 'closed':
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 512 << 10)
        fill(a); a.close(); keep.append(b); continue
    fill(a); fill(b)
    if mode == 'inflight':
        batch += [a, b]
        if len(batch) >= 100:
            carriers.append(socket.socketpair())
            socket.send_fds(carriers[-1][0], [b'x'], [s.fileno() for s in batch])
            for s in batch: s.close()
            batch = []
        continue
    keep.append((a, b))
print('filled', pairs, flush=True)
open('filled', 'w').close()
time.sleep(wait)
)")
        .arg(pairs)
        .arg(mode)
        .arg(waitS);
}

} // namespace runbox::testsupport
