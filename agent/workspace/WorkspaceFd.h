#pragma once

#include <unistd.h>

#include <utility>

namespace runbox::workspace {

/// Owns one file descriptor and closes it on destruction (RAII). Move-only.
/// Used by the workspace file layer for directory, O_PATH and file descriptors.
class UniqueFd final {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    /// Gives up ownership; the caller closes the returned descriptor.
    int release() { return std::exchange(m_fd, -1); }
    /// Closes the held descriptor (if any) and takes @p fd.
    void reset(int fd = -1) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

} // namespace runbox::workspace
