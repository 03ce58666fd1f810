// Exports.swift — `import FilterGraph` is all an app needs: the geometry and pixel types
// (`Size`, `Rect`, `PixelBuffer`, `PixelFormat`…) come with it.

@_exported import PixelBufferModule
