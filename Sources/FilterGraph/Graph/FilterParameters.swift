// FilterParameters.swift — a filter's recipe parameters as one Swift struct.
//
// Each filter declares its parameters as the `@Param` properties of one struct (Param.swift):
//
//     public struct Parameters: FilterParameters {
//       @Param("amount", range: 0...1, percent: .fraction, help: "Light the corners lose.")
//       public var amount = 0.5
//       public init() {}
//     }
//
// A Swift method starts from the defaults and sets what it is given
// (`var p = Parameters(); p.amount = amount`); each property clamps into its row's range.
//
// From that struct, as swift-argument-parser does from a command's properties:
// - `table` is the parameter table, in declaration order, read from a default instance;
// - `arguments` is an instance's (name, value) pairs, the cache key's spelling;
// - `init(checking:)` decodes a recipe line's checked arguments into the struct: the synthesised
//   `Decodable` conformance hands each property's decoder the row and the value.
// The properties are listed by the synthesised `Encodable` conformance, which hands each wrapper,
// in declaration order and under its property's name, to a `ParameterCollector`: compiled code,
// not reflection (`Mirror`, and casting each of its children to `any ParameterField`, whose first
// answer for each wrapper type scans every protocol-conformance record of the program).
// A filter reads its arguments as typed properties (`parameters.amount`), so it cannot read a
// parameter its table lacks, and the table cannot lack one the filter reads.

import Foundation

/// A filter's recipe parameters: a struct of `@Param` and `@OptionalParam` properties.
///
/// It is `Encodable` only so that its properties can be listed (`ParameterCollector`): encoding it
/// with any other encoder throws.
public protocol FilterParameters: Codable, Sendable {
  /// Every parameter at its default (required ones not yet given).
  init()
}

extension FilterParameters {
  /// The parameter table, in the order the properties are declared.
  public static var table: [ParameterSpec] { Self().fields.map(\.field.spec) }

  /// The values given, in table order (absent optional parameters left out): the cache key's
  /// spelling of these parameters.
  public var arguments: Arguments {
    Arguments(fields.compactMap { entry in entry.field.untypedValue.map { (entry.field.spec.name, $0) } })
  }

  /// The parameters of a recipe line whose arguments were checked against `table`.
  init(checking arguments: FilterArguments) throws {
    var fields: [String: any ParameterField] = [:]
    for entry in Self().fields { fields[entry.key] = entry.field.with(arguments.values[entry.field.spec.name]) }
    try self.init(from: ParameterDecoder(fields: fields, codingPath: []))
  }

  /// The `@Param` and `@OptionalParam` properties, each with its Swift name (the decoding key).
  var fields: [(key: String, field: any ParameterField)] {
    let collector = ParameterCollector()
    // Only the collector's own errors can come out, and it throws none.
    try? encode(to: collector)
    return collector.fields
  }
}

/// Lists the `@Param` and `@OptionalParam` properties of a `FilterParameters` struct: its
/// synthesised `encode(to:)` gives each wrapper to a keyed container under its property's name,
/// and the wrapper's own `encode(to:)` adds itself here (`collect`). Properties of other types
/// are left out.
final class ParameterCollector: Encoder {
  /// The wrappers, in declaration order, with their Swift property names.
  private(set) var fields: [(key: String, field: any ParameterField)] = []
  /// The property being encoded.
  fileprivate var key = ""
  var codingPath: [CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// Adds `field` under the property being encoded, when `encoder` is a collector; otherwise
  /// throws (filter parameters encode for listing only).
  static func collect(_ field: some ParameterField, to encoder: Encoder) throws {
    guard let collector = encoder as? ParameterCollector else {
      throw EncodingError.invalidValue(
        field.spec.name, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "filter parameters encode only to list their fields"))
    }
    collector.fields.append((collector.key, field))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(Container(collector: self))
  }
  func unkeyedContainer() -> UnkeyedEncodingContainer { Ignored(codingPath: []) }
  func singleValueContainer() -> SingleValueEncodingContainer { Ignored(codingPath: []) }

  /// The struct's container: a wrapper encodes itself into the collector; a value of any other
  /// type encodes into nothing.
  private struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let collector: ParameterCollector
    var codingPath: [CodingKey] { [] }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      collector.key = key.stringValue
      try value.encode(to: collector)
    }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode(_ value: Bool, forKey key: Key) throws {}
    mutating func encode(_ value: String, forKey key: Key) throws {}
    mutating func encode(_ value: Double, forKey key: Key) throws {}
    mutating func encode(_ value: Float, forKey key: Key) throws {}
    mutating func encode(_ value: Int, forKey key: Key) throws {}
    mutating func encode(_ value: Int8, forKey key: Key) throws {}
    mutating func encode(_ value: Int16, forKey key: Key) throws {}
    mutating func encode(_ value: Int32, forKey key: Key) throws {}
    mutating func encode(_ value: Int64, forKey key: Key) throws {}
    mutating func encode(_ value: UInt, forKey key: Key) throws {}
    mutating func encode(_ value: UInt8, forKey key: Key) throws {}
    mutating func encode(_ value: UInt16, forKey key: Key) throws {}
    mutating func encode(_ value: UInt32, forKey key: Key) throws {}
    mutating func encode(_ value: UInt64, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(Container<NestedKey>(collector: ParameterCollector()))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer { Ignored(codingPath: []) }
    mutating func superEncoder() -> Encoder { ParameterCollector() }
    mutating func superEncoder(forKey key: Key) -> Encoder { ParameterCollector() }
  }

  /// Takes values of other types and keeps nothing.
  private struct Ignored: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var codingPath: [CodingKey]
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws {}
    mutating func encode(_ value: Float) throws {}
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(Container<NestedKey>(collector: ParameterCollector()))
    }
    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> Encoder { ParameterCollector() }
  }
}

/// Hands each property of a `FilterParameters` struct its decoded field: the struct's synthesised
/// `init(from:)` asks a keyed container for each property, and the property's wrapper takes its
/// field from this decoder (`Param.init(from:)`).
struct ParameterDecoder: Decoder {
  /// The fields by Swift property name, with their values set.
  let fields: [String: any ParameterField]
  let codingPath: [CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The field of the property being decoded, as its wrapper's type.
  static func field<Field>(_ decoder: Decoder) throws -> Field {
    guard let decoder = decoder as? ParameterDecoder, let key = decoder.codingPath.last,
      let field = decoder.fields[key.stringValue] as? Field
    else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "filter parameters decode from a recipe line only"))
    }
    return field
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Container(decoder: self))
  }
  func unkeyedContainer() throws -> UnkeyedDecodingContainer { throw unsupported }
  func singleValueContainer() throws -> SingleValueDecodingContainer { throw unsupported }

  private var unsupported: DecodingError {
    .typeMismatch(
      Any.self,
      DecodingError.Context(codingPath: codingPath, debugDescription: "filter parameters hold only @Param and @OptionalParam properties"))
  }

  /// The struct's container: every key decodes its wrapper from this decoder.
  private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ParameterDecoder
    var codingPath: [CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.fields.keys.compactMap(Key.init(stringValue:)) }
    func contains(_ key: Key) -> Bool { decoder.fields[key.stringValue] != nil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try T(from: ParameterDecoder(fields: decoder.fields, codingPath: codingPath + [key]))
    }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw decoder.unsupported }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { throw decoder.unsupported }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw decoder.unsupported }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw decoder.unsupported }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw decoder.unsupported }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw decoder.unsupported }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw decoder.unsupported }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw decoder.unsupported }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw decoder.unsupported }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw decoder.unsupported }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw decoder.unsupported }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw decoder.unsupported }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw decoder.unsupported }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw decoder.unsupported }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
      throw decoder.unsupported
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { throw decoder.unsupported }
    func superDecoder() throws -> Decoder { throw decoder.unsupported }
    func superDecoder(forKey key: Key) throws -> Decoder { throw decoder.unsupported }
  }
}
