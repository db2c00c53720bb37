#include "agent/store/ExecutionState.h"

#include <array>
#include <utility>

namespace runbox::store {

namespace {

constexpr std::array<std::pair<ExecutionState, const char*>, 11> kNames{{
    {ExecutionState::Queued, "queued"},
    {ExecutionState::Running, "running"},
    {ExecutionState::Completed, "completed"},
    {ExecutionState::Failed, "failed"},
    {ExecutionState::TimedOut, "timed_out"},
    {ExecutionState::Cancelled, "cancelled"},
    {ExecutionState::OutputLimited, "output_limited"},
    {ExecutionState::QuotaExceeded, "quota_exceeded"},
    {ExecutionState::MemoryExceeded, "memory_exceeded"},
    {ExecutionState::SetupFailed, "setup_failed"},
    {ExecutionState::Lost, "lost"},
}};

} // namespace

QString toString(ExecutionState state) {
    for (const auto& [value, name] : kNames) {
        if (value == state)
            return QString::fromLatin1(name);
    }
    return QString();
}

std::optional<ExecutionState> executionStateFromString(const QString& name) {
    for (const auto& [value, wire] : kNames) {
        if (name == QLatin1String(wire))
            return value;
    }
    return std::nullopt;
}

QList<ExecutionState> allExecutionStates() {
    QList<ExecutionState> states;
    for (const auto& entry : kNames)
        states.append(entry.first);
    return states;
}

bool isTerminal(ExecutionState state) {
    return state != ExecutionState::Queued && state != ExecutionState::Running;
}

bool isLegalTransition(ExecutionState from, ExecutionState to) {
    switch (from) {
    case ExecutionState::Queued:
        return to == ExecutionState::Running || to == ExecutionState::Cancelled ||
               to == ExecutionState::SetupFailed || to == ExecutionState::QuotaExceeded ||
               to == ExecutionState::Lost;
    case ExecutionState::Running:
        return isTerminal(to);
    default:
        return false;
    }
}

QList<ExecutionState> legalPredecessors(ExecutionState to) {
    QList<ExecutionState> from;
    for (const ExecutionState state : allExecutionStates()) {
        if (isLegalTransition(state, to))
            from.append(state);
    }
    return from;
}

} // namespace runbox::store
