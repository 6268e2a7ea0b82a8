//! Media detection and the attachment (execution-web.md §4.2, §4.3): magic bytes, declared type, file name, summary.

use base64::Engine as _;

use super::provider::object;
use crate::js_string::JsString;
use crate::json::Json;

/// The five supported media types (`SUPPORTED_MEDIA_MIME_TYPES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    Jpeg,
    Png,
    Gif,
    Webp,
    Pdf,
}

impl Media {
    const ALL: [Media; 5] = [Media::Jpeg, Media::Png, Media::Gif, Media::Webp, Media::Pdf];

    /// The MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            Media::Jpeg => "image/jpeg",
            Media::Png => "image/png",
            Media::Gif => "image/gif",
            Media::Webp => "image/webp",
            Media::Pdf => "application/pdf",
        }
    }

    /// The extension a file name without a `.` gets.
    pub fn extension(self) -> &'static str {
        match self {
            Media::Jpeg => ".jpg",
            Media::Png => ".png",
            Media::Gif => ".gif",
            Media::Webp => ".webp",
            Media::Pdf => ".pdf",
        }
    }
}

/// `sniffMediaMimeType`: the signatures, tried in order.
pub fn sniff(body: &[u8]) -> Option<Media> {
    if body.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Media::Jpeg)
    } else if body.starts_with(&[0x89, 0x50, 0x4E, 0x47]) {
        Some(Media::Png)
    } else if body.starts_with(b"GIF8") {
        Some(Media::Gif)
    } else if body.len() >= 12 && body.starts_with(b"RIFF") && &body[8..12] == b"WEBP" {
        Some(Media::Webp)
    } else if body.starts_with(b"%PDF") {
        Some(Media::Pdf)
    } else {
        None
    }
}

/// `normalizeDeclaredContentType`: cut at `;`, trimmed, ASCII-lowercased; empty is none.
pub fn declared(content_type: Option<&str>) -> Option<String> {
    let value = content_type?;
    let cut = value.split(';').next().unwrap_or("");
    let trimmed = cut.trim_matches(|c: char| {
        c.len_utf16() == 1 && crate::text::is_trim_unit(u16::try_from(u32::from(c)).unwrap_or(0))
    });
    (!trimmed.is_empty()).then(|| trimmed.to_ascii_lowercase())
}

/// `resolveMimeType`: the sniffed type, else the declared one when it is one of the five.
pub fn resolve(body: &[u8], declared: Option<&str>) -> Option<Media> {
    sniff(body).or_else(|| {
        let declared = declared?;
        Media::ALL.into_iter().find(|m| m.mime() == declared)
    })
}

/// `filenameFromUrl` on the final URL (§4.3).
pub fn filename(final_url: &str, media: Media) -> String {
    let path = url::Url::parse(final_url)
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    let base = path.rsplit('/').next().unwrap_or("");
    if base.contains('.') {
        base.to_owned()
    } else if base.is_empty() {
        format!("resource{}", media.extension())
    } else {
        format!("{base}{}", media.extension())
    }
}

/// `mediaAttachmentFromBytes`: `{type, mime, url, filename}`.
pub fn attachment(body: &[u8], media: Media, final_url: &str) -> Json {
    let data = format!(
        "data:{};base64,{}",
        media.mime(),
        base64::engine::general_purpose::STANDARD.encode(body)
    );
    Json::Object(object([
        ("type", Json::str("file")),
        ("mime", Json::str(media.mime())),
        ("url", Json::str(&data)),
        ("filename", Json::str(&filename(final_url, media))),
    ]))
}

/// `mediaSummary`: ``Fetched `<filename>` as a <type> attachment.``
pub fn summary(final_url: &str, media: Media) -> JsString {
    JsString::from(format!(
        "Fetched `{}` as a {} attachment.",
        filename(final_url, media),
        media.mime()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_in_order() {
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF]), Some(Media::Jpeg));
        assert_eq!(sniff(&[0xFF, 0xD8]), None);
        assert_eq!(sniff(b"\x89PNG\r\n"), Some(Media::Png));
        assert_eq!(sniff(b"GIF89a"), Some(Media::Gif));
        assert_eq!(sniff(b"RIFF0000WEBPVP8"), Some(Media::Webp));
        assert_eq!(sniff(b"RIFF0000WEB"), None);
        assert_eq!(sniff(b"RIFF0000WAVE"), None);
        assert_eq!(sniff(b"%PDF-1.7"), Some(Media::Pdf));
        assert_eq!(sniff(b"<html>"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn declared_types_and_precedence() {
        assert_eq!(
            declared(Some(" Text/HTML ; charset=utf-8")).as_deref(),
            Some("text/html")
        );
        assert_eq!(declared(Some(" ; x")), None);
        assert_eq!(declared(None), None);
        assert_eq!(resolve(b"\x89PNG", Some("image/jpeg")), Some(Media::Png));
        assert_eq!(resolve(b"\x89PNG", Some("text/html")), Some(Media::Png));
        assert_eq!(resolve(b"<html>", Some("image/png")), Some(Media::Png));
        assert_eq!(resolve(b"<html>", Some("image/svg+xml")), None);
        assert_eq!(resolve(b"<html>", None), None);
    }

    #[test]
    fn file_names() {
        assert_eq!(filename("http://h/a/img.png?x=1#f", Media::Png), "img.png");
        assert_eq!(filename("http://h/x.html", Media::Png), "x.html");
        assert_eq!(filename("http://h/archive.tar", Media::Pdf), "archive.tar");
        assert_eq!(filename("http://h/photo", Media::Jpeg), "photo.jpg");
        assert_eq!(filename("http://h/a%20b", Media::Webp), "a%20b.webp");
        assert_eq!(
            filename("http://127.0.0.1:8080/", Media::Gif),
            "resource.gif"
        );
        assert_eq!(filename("http://h/dir/", Media::Pdf), "resource.pdf");
    }

    #[test]
    fn attachment_and_summary() {
        let a = attachment(b"GIF8", Media::Gif, "http://h/i");
        assert_eq!(
            a.to_compact(),
            r#"{"type":"file","mime":"image/gif","url":"data:image/gif;base64,R0lGOA==","filename":"i.gif"}"#
        );
        assert!(
            summary("http://h/img.png", Media::Png)
                .eq_str("Fetched `img.png` as a image/png attachment.")
        );
    }
}
