//! The base protocol both editor protocols share: messages framed by a `Content-Length`
//! header (LSP and the Debug Adapter Protocol alike). Reading is forgiving: bytes that do not
//! form a header are skipped up to the next `Content-Length` and reported, never fatal.

/// Headers longer than this are garbage (a real header block is a few dozen bytes).
pub const MAX_HEADER: usize = 8 << 10;
/// Bodies longer than this are refused (a 100 MB document is already far beyond the
/// analysis limit).
pub const MAX_BODY: usize = 256 << 20;

pub enum Frame {
    Complete(Vec<u8>),
    Incomplete,
    /// Bytes that were skipped, and why.
    Garbage(String),
}

/// `body` with its header, ready to write.
pub fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reads the next frame's body from a blocking stream (a client's side: the peer is trusted
/// to frame well); `None` at its end or on a broken frame.
pub fn read_frame(r: &mut impl std::io::BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    Some(body)
}

/// Takes the next frame off the front of `buf`.
pub fn next_frame(buf: &mut Vec<u8>) -> Frame {
    // Bytes before a `Content-Length` that does not start a line are garbage.
    if let Some(p) = find(buf, b"Content-Length")
        && p > 0
        && !buf[..p].ends_with(b"\r\n")
        && find(&buf[..p], b"\r\n\r\n").is_none()
    {
        return skip_to_next_header(buf, 0, "bytes that are not a message");
    }
    let Some(end) = find(buf, b"\r\n\r\n") else {
        if buf.len() > MAX_HEADER {
            return skip_to_next_header(buf, 1, "a header block that never ends");
        }
        return Frame::Incomplete;
    };
    // Garbage with no line end runs into the real header after it: the last `Content-Length`
    // of the block, when it does not start a line, is where the message starts.
    if let Some(q) = rfind(&buf[..end], b"Content-Length")
        && q > 0
        && !buf[..q].ends_with(b"\r\n")
    {
        buf.drain(..q);
        return Frame::Garbage("bytes that are not a message".into());
    }
    let header = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut length = None;
    for line in header.split("\r\n") {
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
            if length.is_none() {
                return skip_to_next_header(buf, end + 4, &format!("an invalid Content-Length `{}`", value.trim()));
            }
        }
    }
    let Some(length) = length else {
        return skip_to_next_header(buf, end + 4, "a message without Content-Length");
    };
    if length > MAX_BODY {
        return skip_to_next_header(buf, end + 4, &format!("a message of {length} bytes (at most {MAX_BODY})"));
    }
    if buf.len() < end + 4 + length {
        return Frame::Incomplete;
    }
    let body = buf[end + 4..end + 4 + length].to_vec();
    buf.drain(..end + 4 + length);
    Frame::Complete(body)
}

/// Drops bytes from the front of `buf` up to the next `Content-Length` at or after `from`.
fn skip_to_next_header(buf: &mut Vec<u8>, from: usize, why: &str) -> Frame {
    let from = from.min(buf.len());
    let next = find(&buf[from..], b"Content-Length").map_or(buf.len(), |i| from + i);
    buf.drain(..next);
    Frame::Garbage(why.to_string())
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8]) -> (Vec<String>, usize) {
        let mut buf = bytes.to_vec();
        let mut out = Vec::new();
        let mut garbage = 0;
        loop {
            match next_frame(&mut buf) {
                Frame::Complete(b) => out.push(String::from_utf8_lossy(&b).into_owned()),
                Frame::Garbage(_) => garbage += 1,
                Frame::Incomplete => return (out, garbage),
            }
        }
    }

    #[test]
    fn framing_resynchronises_on_the_next_content_length() {
        let good = "Content-Length: 2\r\n\r\n{}";
        assert_eq!(frames(good.as_bytes()), (vec!["{}".to_string()], 0));
        let bytes = format!("garbage\r\n\r\n{good}Content-Length: x\r\n\r\n{good}X-Other: 1\r\n\r\n{good}");
        assert_eq!(frames(bytes.as_bytes()), (vec!["{}".to_string(); 3], 3));
        // A header block that never ends is dropped once it is too long, up to the next frame.
        let mut long = vec![b'a'; MAX_HEADER + 10];
        long.extend_from_slice(good.as_bytes());
        assert_eq!(frames(&long), (vec!["{}".to_string()], 1));
        // Garbage glued to the front of a header.
        assert_eq!(frames(format!("xyz{good}").as_bytes()), (vec!["{}".to_string()], 1));
        // Garbage with no line end runs into the next header: the message after it is kept.
        assert_eq!(frames(format!("Content-Length: nonsense{good}").as_bytes()), (vec!["{}".to_string()], 1));
        // A partial body waits for the rest.
        assert_eq!(frames(b"Content-Length: 10\r\n\r\n{}"), (vec![], 0));
    }
}
