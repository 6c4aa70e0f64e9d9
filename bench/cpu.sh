#!/bin/sh
# The first line of `make bench` and `make bench-peers`: which CPU the figures below are
# from. The project's machines change vendor without notice, and the record path's cost
# against the floor differs between them (docs/PERFORMANCE.md keeps a table per vendor).
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
vendor=$(sed -n 's/^vendor_id[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
family=$(sed -n 's/^cpu family[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
cpumodel=$(sed -n 's/^model[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
mhz=$(sed -n 's/^cpu MHz[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
# arm64's /proc/cpuinfo has no model name: the implementer and part say which core it is.
[ -n "$model" ] || model=$(sed -n 's/^CPU part[[:space:]]*:[[:space:]]*/part /p' /proc/cpuinfo 2>/dev/null | head -n 1)
virt=""
grep -qw hypervisor /proc/cpuinfo 2>/dev/null && virt=", virtualised"
printf 'CPU: %s' "${model:-unknown}"
[ -n "$vendor" ] && printf ' (%s family %s model %s)' "$vendor" "$family" "$cpumodel"
[ -n "$mhz" ] && printf ', %.0f MHz' "$mhz"
printf ', %s CPUs online%s, %s %s\n' "$(getconf _NPROCESSORS_ONLN)" "$virt" "$(uname -s)" "$(uname -r)"
