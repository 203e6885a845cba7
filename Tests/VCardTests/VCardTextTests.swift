import CardModel
import Testing

@testable import VCard

/// RFC 6350's text rules, with the RFC's own examples.
@Suite struct VCardTextTests {
    /// RFC 6350 3.2: "NOTE:This is a long description\r\n  that exists on a long line." unfolds with one
    /// of the two spaces gone.
    @Test func rfc6350FoldingExampleUnfolds() throws {
        let bytes = Array(
            "BEGIN:VCARD\r\nVERSION:4.0\r\nNOTE:This is a long description\r\n  that exists on a long line.\r\nEND:VCARD\r\n"
                .utf8)
        let contact = try #require(try VCardReader.contacts(bytes).first)
        let note = try #require(contact.properties.first { $0.name == "NOTE" })
        #expect(note.value == "This is a long description that exists on a long line.")
    }

    /// 3.2: at most 75 octets a line, continuation lines start with a space, a UTF-8 character never split.
    @Test func foldingKeepsLinesShortAndCharactersWhole() throws {
        for text in [
            String(repeating: "a", count: 300), String(repeating: "艾达", count: 90),
            "x" + String(repeating: "😀", count: 70),
        ] {
            var out: [UInt8] = []
            VCardText.appendFolded("NOTE:" + text, to: &out)
            let lines = out.split(separator: 10, omittingEmptySubsequences: true)
            for line in lines {
                #expect(line.count <= 76)  // 75 octets and the CR
                #expect(line.last == 13)
                #expect(String(validating: line.dropLast(), as: UTF8.self) != nil)
            }
            for line in lines.dropFirst() { #expect(line.first == 32) }
            var unfolded: [UInt8] = []
            VCardReader.forEachLogicalLine(out) { bytes, _ in
                unfolded = bytes
                return true
            }
            #expect(String(decoding: unfolded, as: UTF8.self) == "NOTE:" + text)
        }
    }

    /// 3.4: backslash, comma, semicolon and newline escaped; read back to the same text.
    @Test func escapingAsTheRFCSays() {
        #expect(VCardText.escaped("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne")
        // 3.3: no control character but a tab in a text value; an escape sequence is not passed on.
        #expect(VCardText.escaped("a\u{1B}[2J\tb\u{9B}c\u{7F}\u{07}") == "a[2J\tbc")
        #expect(VCardText.unescaped("a\\,b\\;c\\\\d\\ne\\Nf") == "a,b;c\\d\ne\nf")
        // 6.7.2's NOTE example.
        #expect(
            VCardText.unescaped("This fax number is operational 0800 to 1715 EST\\, Mon-Fri.")
                == "This fax number is operational 0800 to 1715 EST, Mon-Fri.")
        for text in ["", "plain", "a,b", "\\,", "line\nline", "艾达;\\n", "ends with \\"] {
            #expect(VCardText.unescaped(VCardText.escaped(text)[...]) == text)
        }
    }

    /// RFC 6868's example: a parameter value with newlines, folded.
    @Test func rfc6868CaretEncoding() throws {
        let bytes = Array(
            "BEGIN:VCARD\r\nVERSION:4.0\r\nGEO;X-ADDRESS=\"Pittsburgh Pirates^n115 Federal St^nPitt\r\n sburgh, PA 15212\":geo:40.446816,-80.00566\r\nEND:VCARD\r\n"
                .utf8)
        let contact = try #require(try VCardReader.contacts(bytes).first)
        let geo = try #require(contact.properties.first)
        #expect(geo.parameter("X-ADDRESS") == "Pittsburgh Pirates\n115 Federal St\nPittsburgh, PA 15212")
        #expect(geo.value == "geo:40.446816,-80.00566")
        let written = VCardText.parameterValue("say \"hi\"^\nthere")
        #expect(written == "\"say ^'hi^'^^^nthere\"")
        #expect(VCardText.parameterValueRead(written[...]) == "say \"hi\"^\nthere")
    }

    /// RFC 6350 section 8's example: its EMAIL and URL become cards, nothing else does.
    @Test func rfc6350ExampleImports() throws {
        let text = """
            BEGIN:VCARD
            VERSION:4.0
            FN:Simon Perreault
            N:Perreault;Simon;;;ing. jr,M.Sc.
            BDAY:--0203
            ANNIVERSARY:20090808T1430-0500
            GENDER:M
            LANG;PREF=1:fr
            LANG;PREF=2:en
            ORG;TYPE=work:Viagenie
            ADR;TYPE=work:;Suite D2-630;2875 Laurier;
             Quebec;QC;G1V 2M2;Canada
            TEL;VALUE=uri;TYPE="work,voice";PREF=1:tel:+1-418-656-9254;ext=102
            TEL;VALUE=uri;TYPE="work,cell,voice,video,text":tel:+1-418-262-6501
            EMAIL;TYPE=work:simon.perreault@viagenie.ca
            GEO;TYPE=work:geo:46.772673,-71.282945
            KEY;TYPE=work;VALUE=uri:
             http://www.viagenie.ca/simon.perreault/simon.asc
            TZ:-0500
            URL;TYPE=home:http://nomis80.org
            END:VCARD

            """.replacingNewlines()
        let found = try VCardImport(Array(text.utf8))
        #expect(found.cards.count == 2)
        #expect(found.cards[0]["indexURL"] == .string("mailto:simon.perreault@viagenie.ca"))
        #expect(found.cards[0]["title"] == .string("Write to Simon Perreault"))
        #expect(found.cards[0]["platformName"] == .string("Email"))
        #expect(found.cards[1]["indexURL"] == .string("http://nomis80.org"))
        #expect(found.cards[1]["title"] == .string("nomis80.org"))
        #expect(found.skipped.isEmpty)
        let contact = try #require(try VCardReader.contacts(Array(text.utf8)).first)
        let adr = try #require(contact.properties.first { $0.name == "ADR" })
        #expect(VCardText.fields(adr.value).count == 7)
    }

    /// RFC 2426's example (vCard 3.0): two EMAILs and a URL.
    @Test func rfc2426ExampleImports() throws {
        let text = """
            BEGIN:vCard
            VERSION:3.0
            FN:Frank Dawson
            ORG:Lotus Development Corporation
            ADR;TYPE=WORK,POSTAL,PARCEL:;;6544 Battleford Drive
             ;Raleigh;NC;27613-3502;U.S.A.
            TEL;TYPE=VOICE,MSG,WORK:+1-919-676-9515
            TEL;TYPE=FAX,WORK:+1-919-676-9564
            EMAIL;TYPE=INTERNET,PREF:Frank_Dawson@Lotus.com
            EMAIL;TYPE=INTERNET:fdawson@earthlink.net
            URL:http://home.earthlink.net/~fdawson
            END:vCard

            """.replacingNewlines()
        let found = try VCardImport(Array(text.utf8))
        #expect(
            found.cards.map { $0["indexURL"] } == [
                .string("mailto:Frank_Dawson@Lotus.com"), .string("mailto:fdawson@earthlink.net"),
                .string("http://home.earthlink.net/~fdawson"),
            ])
    }

    /// RFC 9554's SOCIALPROFILE examples: a URL is a card, a user name (VALUE=text) is skipped and
    /// counted, as is an xmpp: IMPP.
    @Test func rfc9554SocialProfiles() throws {
        let text = """
            BEGIN:VCARD
            VERSION:4.0
            FN:Ada Lovelace
            SOCIALPROFILE;SERVICE-TYPE=Mastodon:https://example.com/@foo
            SOCIALPROFILE;SERVICE-TYPE=SomeSite;VALUE=text:peter94
            IMPP:xmpp:ada@example.com
            URL:https://www.linkedin.com/in/ada-lovelace
            X-SOCIALPROFILE;TYPE=twitter:https://twitter.com/ada
            URL:https://hachyderm.io/@ada
            END:VCARD

            """.replacingNewlines()
        let found = try VCardImport(Array(text.utf8))
        #expect(found.cards.map { $0["platformName"]?.stringValue } == ["Mastodon", "LinkedIn", "twitter", "Mastodon"])
        #expect(
            found.cards.map { $0["platformIcon"]?.stringValue } == ["mastodon", "linkedin", "x-twitter", "mastodon"])
        #expect(found.cards[1]["title"] == .string("Ada Lovelace on LinkedIn"))
        #expect(found.skipped.map(\.line) == [5, 6])
    }
}

extension String {
    /// The literal's LF line ends as CRLF, as a vCard file has them.
    func replacingNewlines() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }
}
