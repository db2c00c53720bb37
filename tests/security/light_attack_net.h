#pragma once

/// Runs light_attack's network attack @p command with its argument @p arg (may be null); returns
/// the exit code, or −1 when @p command is not one of them. See light_attack_net.cpp.
int netAttack(const char* command, const char* arg);
