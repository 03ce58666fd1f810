import Foundation

/// PNG and zlib bytes built by hand from their specifications, for tests that damage or extend
/// a file below what an encoder would write.
public enum PNGBytes {
  /// CRC-32 (ISO 3309, as PNG uses it), bit by bit from its definition.
  public static func crc32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
  }

  /// `v` as four big-endian bytes, PNG's byte order.
  public static func bigEndian(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

  /// A PNG chunk: length, type, data, CRC-32 of type and data (PNG specification, 5.3).
  public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
  }

  /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks (RFC 1950, 1951), with its
  /// Adler-32.
  public static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var at = 0
    repeat {
      let n = min(65535, bytes.count - at)
      out += [at + n == bytes.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
      out += bytes[at..<at + n]
      at += n
    } while at < bytes.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in bytes {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return out + bigEndian(b << 16 | a)
  }
}
