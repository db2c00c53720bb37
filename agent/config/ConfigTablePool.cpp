// The pool-host rows of the configuration table (docs/contracts.md "Pool hosts"), in Key order
// after the light tier's rows.
#include "agent/config/ConfigTableRows.h"

namespace runbox::config {

namespace {

using G = OptionGroup;
using T = OptionType;

} // namespace

QList<OptionSpec> poolOptionRows() {
    return {
        {.key = Key::Pool,
         .name = "pool",
         .type = T::String,
         .group = G::Pool,
         .defaultNote = "none: the agent is no pool host",
         .envVar = "RUNBOX_POOL",
         .flag = "--pool",
         .metaVar = "NAME",
         .fileKey = "pool",
         .help = "The pool this agent is a host of (1-64 of A-Z a-z 0-9 _ -), reported on "
                 "/v1/health \"pool\"; pool clients place the pool's workspaces on the hosts "
                 "that report it."},
        {.key = Key::PoolCapacity,
         .name = "poolCapacity",
         .type = T::Integer,
         .group = G::Pool,
         .defaultValue = "0",
         .unit = "count",
         .envVar = "RUNBOX_POOL_CAPACITY",
         .flag = "--pool-capacity",
         .metaVar = "N",
         .fileKey = "poolCapacity",
         .min = 0,
         .max = 1000000,
         .help = "Workspaces (of any tier) this pool host holds at most; a create past it "
                 "answers the part that does not fit in \"rejected\" (0 = no pool limit; needs "
                 "--pool)."},
        {.key = Key::PoolLabels,
         .name = "poolLabels",
         .type = T::String,
         .group = G::Pool,
         .defaultNote = "none",
         .envVar = "RUNBOX_POOL_LABELS",
         .flag = "--pool-labels",
         .metaVar = "LABEL,...",
         .fileKey = "poolLabels",
         .help = "Comma-separated labels of this pool host (e.g. zone=a,npu), reported on "
                 "/v1/health \"pool\" for clients to filter on (needs --pool)."},
        {.key = Key::PoolSecretFile,
         .name = "poolSecretFile",
         .type = T::Path,
         .group = G::Pool,
         .defaultNote = "none: a random agent token",
         .envVar = "RUNBOX_POOL_SECRET_FILE",
         .flag = "--pool-secret-file",
         .metaVar = "FILE",
         .fileKey = "poolSecretFile",
         .help = "The pool's secret (64 hex characters; refused unless only its owner may read "
                 "it, e.g. 0600): the agent token is derived from it and this host's public "
                 "nonce (<state-dir>/pool-host.nonce, kept across restarts, shown on /health), so "
                 "any client holding the secret reconnects (needs --pool; docs/contracts.md "
                 "\"Pool credential\")."},
        {.key = Key::ExitWhenIdleS,
         .name = "exitWhenIdleS",
         .type = T::Integer,
         .group = G::Pool,
         .defaultValue = "0",
         .unit = "s",
         .envVar = "RUNBOX_EXIT_WHEN_IDLE_S",
         .flag = "--exit-when-idle",
         .metaVar = "SECONDS",
         .fileKey = "exitWhenIdleS",
         .min = 0,
         .max = 7 * 86400,
         .help = "Exit cleanly (status 0, the reason logged) once the agent has held no "
                 "workspace and no queued or running execution for this long, counted from "
                 "start-up or the last of them (0 = never)."},
    };
}

} // namespace runbox::config
