#!/usr/bin/env bash
# Rebuilds the committed BPF objects from their C sources. Run it after
# editing a .c file and commit the .o files with it; the lab embeds the
# objects, so neither building nor running dualperf needs clang.
# `cargo test -p dualperf-lab bpf::` checks that the committed objects match
# what this script builds (when clang is installed: dev/install-deps).
# Needs: clang, libbpf-dev (bpf_helpers.h), linux-libc-dev.
set -euo pipefail
cd "$(dirname "$0")"
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
for source in encap6in4 decap6in4 linkem; do
  # No -g: no BTF or debug sections, so the object is small and the only
  # place the sentinel addresses occur is the program's instructions.
  clang -O2 -target bpf -I"/usr/include/$multiarch" -c "$source.c" -o "$source.o"
done
clang --version | head -1 > clang-version.txt
