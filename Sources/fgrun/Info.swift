// Info.swift — `fgrun info FILE…`: what each file is (header facts), and with --stats its
// per-channel statistics and dominant colour; --json prints one object per file for scripts.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

/// Describes image files.
struct Info: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Describes image files: format, size, depth, channels, profile, orientation, metadata, pages.",
    discussion: """
      Only headers are read unless --stats asks for the pixels' statistics: per-channel minimum,
      maximum, mean and standard deviation (in the file's units: 0…255 for 8-bit, 0…65535 for
      16-bit) of the image as FilterGraph renders it (upright, in sRGB), and the dominant colour.
      Every file is described even when some cannot be read; those get an error (an object with
      "error" in --json) and the exit status is then 65.
      """)

  @Flag(help: "Also decode the pixels and print per-channel statistics and the dominant colour.")
  var stats = false

  @Flag(help: "Print one JSON object per file, one per line.")
  var json = false

  @OptionGroup var engine: EngineOptions

  @Argument(help: ArgumentHelp("Image files.", valueName: "file"))
  var files: [String]

  func run() throws {
    try runReportingFailures {
      let renderer = stats ? engine.makeRenderer() : nil
      var failed = false
      for path in files {
        do {
          let url = URL(fileURLWithPath: path)
          let info: ImageFileInfo
          do {
            info = try ImageFileInfo(contentsOf: url, options: engine.loadOptions)
          } catch {
            throw Failure(error, stage: .input)
          }
          var statistics: ImageStatistics?
          if let renderer {
            do {
              statistics = try renderer.statistics(of: try Image(contentsOf: url, options: engine.loadOptions))
            } catch {
              throw Failure(error, stage: .input)
            }
          }
          Console.out(json ? Info.json(path, info, statistics) : Info.text(path, info, statistics))
        } catch {
          failed = true
          let failure = error as? Failure ?? Failure(error, stage: .input)
          if json {
            Console.out(Info.encode(["file": path, "error": failure.message]))
          } else {
            failure.report(prefix: "\(path): ")
          }
        }
      }
      return failed ? ExitStatus.input : ExitStatus.ok
    }
  }

  /// The channel names of a layout, as `info` prints them.
  static func channelNames(_ layout: ChannelLayout) -> String {
    switch layout {
    case .gray: return "gray"
    case .grayAlpha: return "gray, alpha"
    case .rgb: return "rgb"
    case .rgba: return "rgb, alpha"
    }
  }

  /// The human-readable description of one file.
  static func text(_ path: String, _ info: ImageFileInfo, _ statistics: ImageStatistics?) -> String {
    var size = "\(info.storedSize)"
    if info.size != info.storedSize { size += " (upright \(info.size))" }
    var lines = [
      path,
      "  format       \(info.format.rawValue)",
      "  size         \(size)",
      "  depth        \(info.bitDepth)-bit\(info.component == .float32 ? " float" : "")",
      "  channels     \(info.layout.channelCount) (\(channelNames(info.layout)))",
      "  profile      \(info.profileDescription ?? (info.storesLinearLight ? "none; gAMA 1.0: linear light, read as such" : "none (sRGB assumed)"))",
      "  orientation  \(info.orientation.rawValue) (\(info.orientation.name))",
      "  metadata     \(info.metadata.isEmpty ? "none" : info.metadata.joined(separator: ", "))",
      "  pages        \(info.pageCount)",
    ]
    if let map = info.gainMap { lines.append("  gain map     " + gainMapText(map)) }
    if let hdr = info.hdrTransfer {
      let source = info.hdrPeakSource.map { "; the peak \($0.phrase)" } ?? ""
      lines.append("  HDR          " + hdr.toneMappingSummary(peak: info.hdrPeak ?? HDRToneMapping.nominalPeak) + source)
    }
    if let animation = info.animation { lines += animationLines(animation) }
    lines += info.warnings.enumerated().map { "  \($0.offset == 0 ? "warnings" : "        ")     \($0.element)" }
    if let statistics {
      let scale = info.maximumValue
      func number(_ v: Double) -> String { String(format: scale == 1 ? "%.4f" : "%.2f", v * scale) }
      lines.append("  statistics   channel        min        max       mean  deviation")
      for c in statistics.channels {
        let cells = [c.minimum, c.maximum, c.mean, c.standardDeviation].map { number($0).leftPadded(to: 10) }
        lines.append("               " + c.name.padding(toLength: 7, withPad: " ", startingAt: 0) + " " + cells.joined(separator: " "))
      }
      lines.append("  dominant     \(statistics.dominantColor?.hexString ?? "none (fully transparent)")")
    }
    return lines.joined(separator: "\n")
  }

  /// An animation's frames, canvas, delays (runs of equal delays shortened) and loop count.
  static func animationLines(_ animation: AnimationInfo) -> [String] {
    var runs: [(delay: Int, count: Int)] = []
    for delay in animation.delays {
      if let last = runs.last, last.delay == delay { runs[runs.count - 1].count += 1 } else { runs.append((delay, 1)) }
    }
    let delays = runs.map { $0.count == 1 ? "\($0.delay)" : "\($0.delay) ×\($0.count)" }.joined(separator: ", ")
    let plays = animation.loopCount == 0 ? "forever" : animation.loopCount == 1 ? "once" : "\(animation.loopCount) times"
    return [
      "  frames       \(animation.frameCount) on a \(animation.canvasSize) canvas, \(animation.duration) ms in all",
      "  delays       \(delays) ms",
      "  plays        \(plays)",
    ]
  }

  /// One file as one line of JSON.
  static func json(_ path: String, _ info: ImageFileInfo, _ statistics: ImageStatistics?) -> String {
    var object: [String: Any] = [
      "file": path, "format": info.format.rawValue, "width": info.size.width, "height": info.size.height,
      "stored_width": info.storedSize.width, "stored_height": info.storedSize.height, "depth": info.bitDepth,
      "channels": info.layout.channelCount, "alpha": info.layout.hasAlpha, "profile": info.profileDescription ?? NSNull(),
      "orientation": info.orientation.rawValue, "metadata": info.metadata, "pages": info.pageCount,
      "warnings": info.warnings,
    ]
    if let map = info.gainMap { object["gain_map"] = gainMapObject(map) }
    if let hdr = info.hdrTransfer { object["hdr_transfer"] = hdr.rawValue }
    if let peak = info.hdrPeak, info.hdrTransfer != nil { object["hdr_peak"] = peak }
    if let source = info.hdrPeakSource, info.hdrTransfer != nil { object["hdr_peak_source"] = source.rawValue }
    if let animation = info.animation {
      object["animation"] = [
        "frames": animation.frameCount, "canvas_width": animation.canvasSize.width,
        "canvas_height": animation.canvasSize.height, "delays": animation.delays, "loop": animation.loopCount,
      ] as [String: Any]
    }
    if let statistics {
      let scale = info.maximumValue
      object["statistics"] = [
        "scale": scale,
        "channels": statistics.channels.map { c in
          ["name": c.name, "min": c.minimum * scale, "max": c.maximum * scale, "mean": c.mean * scale, "deviation": c.standardDeviation * scale] as [String: Any]
        },
        "dominant": statistics.dominantColor?.hexString ?? NSNull(),
      ] as [String: Any]
    }
    return encode(object)
  }

  /// `object` as compact JSON with sorted keys.
  static func encode(_ object: [String: Any]) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
      let text = String(data: data, encoding: .utf8)
    else { return "{}" }
    return text
  }
}

extension String {
  /// The string with spaces in front up to `width` characters.
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
