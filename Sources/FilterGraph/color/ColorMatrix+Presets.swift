// ColorMatrix+Presets.swift — the recipe verbs that are one colour matrix each (sepia, saturate,
// brightness, contrast, exposure, invert): their parameters and tables. Each builds a
// `ColorMatrixOperation` from its `ColorMatrix` preset (ColorMatrix.swift), labelled with its own
// verb and arguments, so `explain` and cache keys name the preset.

extension ColorMatrixOperation {
  /// `sepia intensity=1 space=encoded`.
  public struct SepiaParameters: FilterParameters {
    /// How much of the sepia matrix is mixed in.
    @Param("intensity", range: 0...1, percent: .fraction, help: "0 = unchanged, 1 = full sepia.")
    public var intensity = 1.0
    /// The encoding the matrix is applied in.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.encoded
    /// The defaults.
    public init() {}
  }

  /// `saturate amount=1.2 space=encoded`.
  public struct SaturationParameters: FilterParameters {
    /// The saturation factor.
    @Param("amount", range: 0...4, percent: .fraction, help: "Saturation factor.")
    public var amount = 1.2
    /// The encoding the matrix is applied in.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.encoded
    /// The defaults.
    public init() {}
  }

  /// `brightness amount=0.1 space=encoded`.
  public struct BrightnessParameters: FilterParameters {
    /// What is added to red, green and blue.
    @Param("amount", range: -1...1, percent: .fraction, help: "Added to each channel (0…1 scale).")
    public var amount = 0.1
    /// The encoding the matrix is applied in.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.encoded
    /// The defaults.
    public init() {}
  }

  /// `contrast amount=1.2 space=encoded`.
  public struct ContrastParameters: FilterParameters {
    /// The contrast factor.
    @Param("amount", range: 0...4, percent: .fraction, help: "Contrast factor.")
    public var amount = 1.2
    /// The encoding the matrix is applied in.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.encoded
    /// The defaults.
    public init() {}
  }

  /// `exposure ev=0.5 space=linear`.
  public struct ExposureParameters: FilterParameters {
    /// Photographic stops.
    @Param("ev", range: -10...10, help: "Photographic stops; +1 doubles the light.")
    public var ev = 0.5
    /// The encoding the matrix is applied in: linear light by default.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.linear
    /// The defaults.
    public init() {}
  }

  /// `invert space=encoded`.
  public struct InversionParameters: FilterParameters {
    /// The encoding the matrix is applied in.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.encoded
    /// The defaults.
    public init() {}
  }

  /// `sepia intensity=1`.
  public static let sepiaTable = OperationDescriptor(
    name: "sepia", category: .color, summary: "Sepia toning (the classic sepia matrix mixed in by intensity).",
    parameters: SepiaParameters.table, example: "sepia intensity=0.8")

  /// `saturate amount=1.2`.
  public static let saturationTable = OperationDescriptor(
    name: "saturate", category: .color, summary: "Scales saturation around Rec. 709 luma (1 = unchanged, 0 = gray).",
    parameters: SaturationParameters.table, example: "saturate amount=1.2")

  /// `brightness amount=0.1`.
  public static let brightnessTable = OperationDescriptor(
    name: "brightness", category: .color, summary: "Adds a constant to red, green and blue.",
    parameters: BrightnessParameters.table, example: "brightness amount=0.1")

  /// `contrast amount=1.2`.
  public static let contrastTable = OperationDescriptor(
    name: "contrast", category: .color, summary: "Scales values around mid-gray 0.5 (1 = unchanged).",
    parameters: ContrastParameters.table, example: "contrast amount=1.2")

  /// `exposure ev=0.5` (linear light by default).
  public static let exposureTable = OperationDescriptor(
    name: "exposure", category: .color, summary: "Multiplies red, green and blue by 2^ev (in linear light by default).",
    parameters: ExposureParameters.table, example: "exposure ev=0.5")

  /// `invert`.
  public static let invertTable = OperationDescriptor(
    name: "invert", category: .color, summary: "Inverts red, green and blue (1 − c), keeping alpha.",
    parameters: InversionParameters.table, example: "invert")
}
