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
// A filter reads its arguments as typed properties (`parameters.amount`), so it cannot read a
// parameter its table lacks, and the table cannot lack one the filter reads.

import Foundation

/// A filter's recipe parameters: a struct of `@Param` and `@OptionalParam` properties.
public protocol FilterParameters: Decodable, Sendable {
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
    Mirror(reflecting: self).children.compactMap { child in
      guard let field = child.value as? any ParameterField, let label = child.label else { return nil }
      // A property wrapper's storage is the property's name behind an underscore.
      return (String(label.dropFirst(label.hasPrefix("_") ? 1 : 0)), field)
    }
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
