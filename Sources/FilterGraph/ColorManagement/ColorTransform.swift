// ColorTransform.swift — one lcms2 transform between stored pixels and the working space.
//
// The working space is linear light with the sRGB (Rec. 709) primaries and D65 white, extended
// range: a source's colours outside sRGB come out below 0 or above 1 and are kept in the float
// tiles. `toWorking` reads stored rows (8/16-bit gray, RGB or CMYK, alpha skipped) into four floats
// per pixel (the fourth lane left alone); `fromWorking` turns four-float straight linear pixels into
// four-float pixels of the profile's encoded values (gray in the first lane; alpha lane left alone),
// which the store then clips and rounds.

import CLCMS
import Foundation

/// A built transform; `run` may be called from many threads at once (built without lcms2's cache).
final class ColorTransform: @unchecked Sendable {  // all lets; an lcms2 handle built without its cache
  /// Which way it converts.
  enum Direction: Hashable, Sendable {
    case toWorking
    case fromWorking
  }

  private let handle: UnsafeMutableRawPointer
  /// The profile's description, for `explain` and messages.
  let profileName: String
  /// The profile's bytes.
  let profileData: Data
  /// The engine's own table + matrix path, when it agrees with lcms2 (see MatrixShaper).
  /// Set once while the transform is built, before it is shared.
  var fast: MatrixShaper?

  init(handle: UnsafeMutableRawPointer, profileName: String, profileData: Data, fast: MatrixShaper? = nil) {
    self.handle = handle
    self.profileName = profileName
    self.profileData = profileData
    self.fast = fast
  }

  deinit { fg_icc_transform_free(handle) }

  /// Converts `count` pixels from `input` to `output`.
  @inline(__always)
  func run(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
    if let fast {
      fast.run(input, output, count: count)
    } else {
      fg_icc_run(handle, input, output, count)
    }
  }

  /// Converts through lcms2 only (for checking the fast path).
  func runLcms2(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
    fg_icc_run(handle, input, output, count)
  }
}
