#!/usr/bin/env bash
# Checks that another package can depend on FilterGraph by version, as a user's package would.
#
#   scripts/check-consumer.sh
#
# Clones this repository's committed HEAD into a temporary folder, tags the clone 1.0.0, writes a
# separate package that depends on it with `.package(url: "file://…", from: "1.0.0")` and runs its
# executable: `try await Renderer().write(…)` of samples/flower.jpg scaled to fit 200×200, which
# the executable then reads back and checks (200×133, three channels, none of them flat).
# SwiftPM refuses a version-based dependency whose product targets pass `unsafeFlags`, so this also
# fails if one comes back. Dependencies resolve as for any package on this machine (no network of
# its own). Takes a debug build of the library: about 3 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fg-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-hardlinks "$root" "$work/FilterGraph"
git -C "$work/FilterGraph" -c user.name=check-consumer -c user.email=check-consumer@localhost \
  tag -f -a 1.0.0 -m "check-consumer" >/dev/null

mkdir -p "$work/Consumer/Sources/Consumer"
cat > "$work/Consumer/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Consumer",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(url: "file://$work/FilterGraph", from: "1.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "Consumer",
      dependencies: [.product(name: "FilterGraph", package: "FilterGraph")]),
  ]
)
EOF
cat > "$work/Consumer/Sources/Consumer/main.swift" <<'EOF'
import FilterGraph
import Foundation

let arguments = CommandLine.arguments
let input = URL(fileURLWithPath: arguments[1]), output = URL(fileURLWithPath: arguments[2])

let thumbnail = try Image(contentsOf: input).scaled(toFit: Size(width: 200, height: 200))
try await Renderer().write(thumbnail, to: output)

let written = try Image(contentsOf: output)
let statistics = try Renderer().statistics(of: written)
guard written.size == Size(width: 200, height: 133), statistics.channels.count == 3,
  statistics.channels.allSatisfy({ $0.standardDeviation > 0.01 })
else {
  print("consumer: unexpected output \(written.size), \(statistics.channels)")
  exit(1)
}
print("consumer: wrote \(output.lastPathComponent), \(written.size)")
EOF

cd "$work/Consumer"
swift build --product Consumer
.build/debug/Consumer "$root/samples/flower.jpg" "$work/flower-200.png"
head -c 8 "$work/flower-200.png" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" ||
  { echo "check-consumer: the output is not a PNG file" >&2; exit 1; }
echo "check-consumer: a package depending on FilterGraph from: 1.0.0 built and rendered"
