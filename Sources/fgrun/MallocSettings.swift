// MallocSettings.swift — how glibc's allocator behaves in the long-running commands (batches, the
// server, an animation's frame loop): a process-wide choice, so the executable makes it, never
// the library.

import Foundation

/// Sets glibc's mmap threshold to a fixed `bytes` (1 MiB by default). A batch or a server
/// allocates and frees blocks of many sizes (each file's bytes, windows of decoded rows, a whole
/// decode of 10-20 MB, encoded results); glibc raises its threshold to the largest mapped block
/// freed, after which such blocks come from the heaps of its per-thread arenas and fragment them,
/// so the peak grows with the number of files or requests. A fixed threshold keeps every block of
/// that size or more mapped and unmapped whole (W10, 100 photos at --jobs 2: peak RSS 139 MB
/// without, 100 MB with 1 MiB; the server under bench/serve.sh's S2 is in docs/Server.md). An
/// animation's frame loop does the same frame after frame with smaller blocks (libwebp's
/// per-frame encoders, frames of a few hundred KB), so it takes 256 KiB: W12b's peak RSS varied
/// 86-142 MB from run to run without it, 64-65 MB with; W12c's 124-132 MB, 57-71 MB with
/// (release, 2026-11-29; CPU time within the runs' spread). `mallopt` is declared in <malloc.h>,
/// which Swift's Glibc module does not import, so it is looked up by name; elsewhere (another
/// libc) nothing changes.
func fixMallocMapThreshold(_ bytes: Int32 = 1 << 20) {
  #if canImport(Glibc)
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in glibc's <malloc.h>
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, bytes)
  #endif
}

/// The soft address-space limit (`ulimit -v`) in bytes, or nil when there is none.
func addressSpaceLimit() -> Int? {
  #if canImport(Glibc)
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
    return Int(clamping: limit.rlim_cur)
  #else
    return nil
  #endif
}

/// Under an address-space limit, has glibc's allocator serve every thread from one arena. Each
/// further arena reserves 64 MiB of address space when a thread first allocates, so two workers
/// and the encoders' jobs took about 200 MB of a `ulimit -v` before any pixel: fgrun then failed
/// at 240,000 KB with a 1 MB block refused (release, a 2268×1512 JPEG scaled to 800 px). Without
/// a limit nothing changes.
func shareOneMallocArenaUnderAnAddressSpaceLimit() {
  #if canImport(Glibc)
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let arenaMax: Int32 = -8  // M_ARENA_MAX in glibc's <malloc.h>
    guard addressSpaceLimit() != nil, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, 1)
  #endif
}
