@testable import GitCore
import Testing

/// `Repository.attributesMayConvert`: the cheap look at an attributes file that keeps a deck with only
/// its own merge line off libgit2's filters, and sends every other attributes file to them.
@Suite("Attributes that may convert a file")
struct AttributesMayConvertTests {
    @Test(
        "harmless lines convert nothing",
        arguments: [
            "", "cards/**/*.json merge=cards\n", "# * text=auto\n\n", "*.png diff=lfs -diff\r\n",
            "*.md whitespace=trailing-space export-ignore linguist-generated=true\n",
        ])
    func harmless(text: String) {
        #expect(!Repository.attributesMayConvert(Array(text.utf8)))
    }

    @Test(
        "lines naming a converting attribute, a macro or an unknown name may convert",
        arguments: [
            "* text=auto\n", "*.json eol=crlf\n", "cards/**/*.json merge=cards\n* -text\n", "*.bin binary\n",
            "*.png filter=lfs diff=lfs merge=lfs -text\n", "*.c ident\n", "*.txt working-tree-encoding=UTF-16\n",
            "[attr]mine text\n", "*.json mine\n", "\"with space\" merge=cards\n", "*.txt crlf\n", "*.txt !text\n",
        ])
    func converting(text: String) {
        #expect(Repository.attributesMayConvert(Array(text.utf8)))
    }
}
