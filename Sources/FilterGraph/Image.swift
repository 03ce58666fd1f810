// Image.swift — the immutable recipe users build: a source plus filters, not yet pixels.

import Foundation
import ImageCodecs
import PixelBufferModule

/// An image recipe: how to make pixels, not the pixels themselves.
///
/// Building an `Image` reads at most a file's header; filters return new `Image` values that
/// describe more work. Nothing is decoded or computed until a `Renderer` renders or writes it.
///
/// ```swift
/// let renderer = Renderer()
/// let photo = try Image(contentsOf: inputURL)          // reads the header only
/// let look = photo.scaled(toFit: Size(width: 800, height: 800))
///                 .tinted(try Color(string: "#FF8000"), amount: 0.3)
///                 .blurred(sigma: 2)
///                 .converted(to: .gray)
/// try renderer.write(look, to: outputURL)
/// ```
public struct Image: Sendable {
  /// The graph node this image is the result of.
  public let node: ImageNode

  /// Wraps a node.
  public init(node: ImageNode) { self.node = node }

  /// Size, channels, depth and colour space of the result, known without rendering.
  public var info: ImageInfo { node.info }
  /// Width and height.
  public var size: Size { node.info.size }
  /// The rectangle at the origin with `size`.
  public var extent: Rect { node.info.extent }

  /// The image with `operation` applied to it (and to `others`, for operations with more inputs).
  ///
  /// This is how every filter method is built, and how custom operations join the graph.
  public func applying(_ operation: any ImageOperation, with others: [Image] = []) -> Image {
    Image(node: ImageNode(operation: operation, inputs: [node] + others.map(\.node)))
  }
}
