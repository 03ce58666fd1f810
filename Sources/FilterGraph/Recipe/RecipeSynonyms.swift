// RecipeSynonyms.swift — the names people type from other tools, pointed at FilterGraph's verbs,
// and the spellings a choice accepts besides its own word.
//
// A verb other tools use (`resize`, `thumbnail`, `grayscale`) is not a second name for a filter:
// it gets an error whose hint writes the real line, so a recipe always reads one way. Choice
// words that differ only in British and American spelling (`centre`/`center`, `grey`/`gray`) are
// the same word everywhere a choice is read.

enum RecipeSynonyms {
  /// For a verb of another tool, the FilterGraph line that does it and, when it helps, more.
  static let verbHints: [String: (line: String, more: String?)] = [
    "resize": ("scale", "scale 0.5, scale width=1200, scale fit=800x800 or scale size=800x600"),
    "thumbnail": ("scale fit=WxH", "fits inside the box; scale fill=WxH covers the box and crops to it"),
    "thumb": ("scale fit=WxH", "fits inside the box; scale fill=WxH covers the box and crops to it"),
    "grayscale": ("convert to=gray", nil), "greyscale": ("convert to=gray", nil),
    "gray": ("convert to=gray", nil), "grey": ("convert to=gray", nil),
    "monochrome": ("convert to=gray", "or tint COLOR mode=monochrome"), "desaturate": ("saturate amount=0", nil),
    "mirror": ("flip", nil), "flop": ("flip axis=horizontal", nil),
    "overlay": ("composite", nil), "watermark": ("composite", "composite logo over=input gravity=southeast margin=24"),
    "resample": ("scale", nil), "downscale": ("scale", nil), "upscale": ("scale", nil),
    "fit": ("scale fit=WxH", nil), "fill": ("scale fill=WxH", nil),
    "unsharp": ("sharpen", nil), "unsharpmask": ("sharpen", nil), "gaussianblur": ("blur", nil),
    "noise": ("grain", nil), "autolevel": ("normalize", nil), "autocontrast": ("normalize", nil), "autorotate": ("orient", nil),
    "background": ("flatten color=COLOR", nil),
  ]

  /// For a parameter of another tool given to a verb, the FilterGraph line that does it
  /// (`crop aspect=16:9`).
  static let parameterHints: [String: [String: String]] = [
    "crop": [
      "aspect": "to crop to an aspect ratio, use 'scale fill=WxH' (scale and crop the centre) or 'smartcrop size=WxH' (the most interesting window)",
      "ratio": "to crop to an aspect ratio, use 'scale fill=WxH' (scale and crop the centre) or 'smartcrop size=WxH' (the most interesting window)",
    ],
    "scale": [
      "withoutenlargement": "write enlarge=false", "upscale": "write enlarge=false to never enlarge",
    ],
  ]

  /// Choice values other tools offer that FilterGraph leaves out, by parameter name, with why
  /// and what to write instead.
  static let omittedValues: [String: [String: String]] = [
    "focus": [
      "face":
        "FilterGraph has no face detector: the one packaged here (OpenCV's Haar cascades) needs OpenCV's C++ library behind a C shim, which FilterGraph does not link; focus=attention keeps skin tones, saturated colour and detail (docs/Recipes.md)"
    ]
  ]

  /// The reason a choice value of another tool is left out, or nil.
  static func omission(of value: String, for parameter: String) -> String? {
    omittedValues[parameter]?[value.lowercased()]
  }

  /// Choice words that are one word in two spellings.
  static let spellings: [String: String] = ["centre": "center", "center": "centre", "grey": "gray", "gray": "grey"]

  /// The hint for an unknown verb of another tool, or nil.
  static func hint(forVerb verb: String) -> String? {
    verbHints[verb.lowercased()].map { "; did you mean '\($0.line)'?" + ($0.more.map { " (\($0))" } ?? "") }
  }

  /// The hint for an unknown parameter `key` of `verb`, or nil.
  static func hint(forParameter key: String, of verb: String) -> String? {
    parameterHints[verb]?[key.lowercased().replacingOccurrences(of: "-", with: "")].map { "; \($0)" }
  }
}
