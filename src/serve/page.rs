//! The page of the browser board: HTML, CSS and JavaScript built into the binary (no build
//! step, nothing fetched from elsewhere). With `DAMAST_PAGE_DIR` set they are read from that
//! directory instead, so the page can be worked on without rebuilding.

const INDEX: &str = include_str!("page/index.html");
const APP: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");

/// The content type and bytes of a page file (`""` is the index).
pub fn file(name: &str) -> Option<(&'static str, Vec<u8>)> {
    let (file, kind, built_in) = match name {
        "" | "index.html" => ("index.html", "text/html; charset=utf-8", INDEX),
        "app.js" => ("app.js", "text/javascript; charset=utf-8", APP),
        "style.css" => ("style.css", "text/css; charset=utf-8", STYLE),
        _ => return None,
    };
    let data = std::env::var_os("DAMAST_PAGE_DIR")
        .and_then(|dir| std::fs::read(std::path::Path::new(&dir).join(file)).ok())
        .unwrap_or_else(|| built_in.as_bytes().to_vec());
    Some((kind, data))
}
