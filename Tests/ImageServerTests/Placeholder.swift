import XCTest
@testable import ImageServer
