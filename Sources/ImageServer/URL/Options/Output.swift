// Output.swift — the options that change the file, not the pixels: quality/q, format/f/ext,
// strip_metadata/sm, dpr, and cachebuster/cb (only changes the URL, so caches miss).

extension URLOption {
  static let quality = URLOption(names: ["quality", "q"], arguments: "%quality", summary: "Encoder quality 1–100 (0: the format's default).") { args, options in
    try args.expect(atMost: 1)
    let q = try args.integer(0, in: 0...100, default: 0)
    options.quality = q == 0 ? nil : q
  }

  static let format = URLOption(names: ["format", "f", "ext"], arguments: "%extension", summary: "Output format, as the @extension would.") { args, options in
    try args.expect(atMost: 1)
    options.format = args.has(0) ? args.values[0].lowercased() : nil
  }

  static let stripMetadata = URLOption(
    names: ["strip_metadata", "sm"], arguments: "%strip", summary: "1: keep only the colour profile; 0: keep all metadata."
  ) { args, options in
    try args.expect(atMost: 1)
    options.stripsMetadata = try args.boolean(0, default: true)
  }

  static let dpr = URLOption(names: ["dpr"], arguments: "%dpr", summary: "Multiply sizes, offsets and padding (HiDPI screens), 0.1–8.") { args, options in
    try args.expect(atMost: 1)
    options.dpr = try args.number(0, in: 0.1...8, default: 1)
  }

  static let cachebuster = URLOption(names: ["cachebuster", "cb"], arguments: "%string", summary: "Ignored: changes the URL (and the ETag) only.") { _, _ in }
}
