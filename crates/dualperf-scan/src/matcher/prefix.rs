//! Go buffers that start with a 4-byte address (issue 28): the layouts a
//! packet capture builds around an IPv4 source address, which an IPv6
//! port has to widen to 16 bytes.
//!
//! - An identifier buffer whose first 4 bytes receive an address
//!   (`copy(p.ID[:4], p.Addr)`): its fixed size (`type tcpID [12]byte`,
//!   `ID [12]byte`) counts those 4 bytes (a 4-byte address, two 2-byte
//!   ports and a 4-byte number in goreplay's connection id).
//! - A buffer cut into a 4-byte head and the rest for a packet parser
//!   (`ParseTCPPacket(data[:4], data[4:])`): the only 4-byte field a packet
//!   parser is handed apart from its packet is an IPv4 address.

use super::{is_address_name, HashSet, Matcher};
use crate::rule::Severity;
use crate::token::{Token, TokenKind};

/// Words in a function name that say it parses packets or addresses.
const PACKET_WORDS: &[&str] = &[
    "packet", "tcp", "udp", "icmp", "ip", "datagram", "addr", "address", "frame",
];

/// Go: the fields that receive an address in their first 4 bytes
/// (`copy(p.ID[:4], p.Addr)` gives `ID`), and the named types those fields
/// are declared with (`ID tcpID` gives `tcpID`).
pub(super) fn address_prefixed_names<'s>(tokens: &[Token<'s>]) -> HashSet<&'s str> {
    let mut fields: HashSet<&'s str> = HashSet::default();
    for k in 0..tokens.len().saturating_sub(8) {
        if !(tokens[k].is_ident("copy") && tokens[k + 1].is_punct("(")) {
            continue;
        }
        // copy ( RECV [ : 4 ] , SOURCE... ) with RECV `id` or `p.ID`.
        let mut j = k + 2;
        while j + 1 < tokens.len()
            && tokens[j].kind == TokenKind::Ident
            && tokens[j + 1].is_punct(".")
        {
            j += 2;
        }
        let Some(w) = tokens.get(j..j + 6) else {
            continue;
        };
        let head = w[0].kind == TokenKind::Ident
            && w[1].is_punct("[")
            && w[2].is_punct(":")
            && w[3].text == "4"
            && w[4].is_punct("]")
            && w[5].is_punct(",");
        if !head {
            continue;
        }
        let mut source = (j + 6..tokens.len().min(j + 18))
            .take_while(|&m| !tokens[m].is_punct(")"))
            .map(|m| &tokens[m]);
        if source.any(|t| t.kind == TokenKind::Ident && is_address_name(t.text)) {
            fields.insert(w[0].text);
        }
    }
    if fields.is_empty() {
        return fields;
    }
    let mut names = fields.clone();
    // `ID tcpID` on one line: the field's named type.
    for w in tokens.windows(2) {
        if w[0].kind == TokenKind::Ident
            && w[1].kind == TokenKind::Ident
            && w[0].line == w[1].line
            && fields.contains(w[0].text)
        {
            names.insert(w[1].text);
        }
    }
    names
}

impl<'s> Matcher<'_, 's> {
    /// Go: the size at `i` of a byte array declared for a name whose first
    /// 4 bytes receive an address (`type tcpID [12]byte`, `ID [12]byte`).
    pub(super) fn check_address_prefixed_array(&mut self, i: usize) -> bool {
        if self.address_prefixed.is_empty()
            || i < 2
            || !self.previous_is(i, "[")
            || !self.next_is(i, "]")
            || !matches!(self.text_at(i + 2), "byte" | "uint8")
        {
            return false;
        }
        let owner = &self.tokens[i - 2];
        let Ok(size) = self.tokens[i].text.parse::<u32>() else {
            return false;
        };
        if owner.kind != TokenKind::Ident || !self.address_prefixed.contains(owner.text) || size < 4
        {
            return false;
        }
        let name = owner.text;
        self.push("address-byte-layout", Severity::Warning, i, format!("`{name}` is {size} bytes and its first 4 receive an address (`copy(..[:4], addr)`): an IPv4 layout; an IPv6 address needs 16, so size it {} or by the family", size + 12));
        true
    }

    /// Go: `data[:4]` handed to a packet parser together with `data[4:]`
    /// (`ParseTCPPacket(data[:4], data[4:])`): a 4-byte address head.
    pub(super) fn is_packet_head_split(&self, i: usize) -> bool {
        if self.tokens[i].text != "4"
            || i < 3
            || !self.previous_is(i, ":")
            || !self.tokens[i - 2].is_punct("[")
            || !self.next_is(i, "]")
        {
            return false;
        }
        let buffer = &self.tokens[i - 3];
        if buffer.kind != TokenKind::Ident {
            return false;
        }
        let Some(open) = self.enclosing_open(i - 3) else {
            return false;
        };
        let words = super::words::name_words(self.callee_at(open));
        if !words.iter().any(|w| PACKET_WORDS.contains(&w.as_str())) {
            return false;
        }
        // The rest of the same buffer, `data[4:]`, is another argument.
        self.call_arguments(open).is_some_and(|args| {
            args.iter().any(|a| {
                let arg = &self.tokens[a.clone()];
                arg.len() == 5
                    && arg[0].text == buffer.text
                    && arg[1].is_punct("[")
                    && arg[2].text == "4"
                    && arg[3].is_punct(":")
                    && arg[4].is_punct("]")
            })
        })
    }
}
