//! Times for people: in the reader's zone with the zone named
//! (`2026-02-16 13:47:50 EST`), or in UTC when they ask, with ISO 8601 on
//! hover. The browser formats them (`Date`, `Intl` through js_sys): no date
//! library in the bundle.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

/// `YYYY-MM-DD hh:mm:ss ZONE` (`with_seconds` false: no seconds) for the
/// Unix milliseconds `ms`, in UTC or the reader's zone.
pub fn stamp(ms: i64, utc: bool, with_seconds: bool) -> String {
    let d = js_sys::Date::new(&JsValue::from_f64(ms as f64));
    let (y, m, day) = if utc {
        (
            d.get_utc_full_year(),
            d.get_utc_month() + 1,
            d.get_utc_date(),
        )
    } else {
        (d.get_full_year(), d.get_month() + 1, d.get_date())
    };
    let options = js_sys::Object::new();
    let set = |k: &str, v: &str| {
        let _ = js_sys::Reflect::set(&options, &k.into(), &v.into());
    };
    set("hourCycle", "h23");
    set("hour", "2-digit");
    set("minute", "2-digit");
    if with_seconds {
        set("second", "2-digit");
    }
    set("timeZoneName", "short");
    if utc {
        set("timeZone", "UTC");
    }
    // The reader's language names the zone as they know it (CET, MEZ, EST).
    let language = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_else(|| "en-GB".to_owned());
    let time = String::from(d.to_locale_time_string_with_options(&language, &options));
    format!("{y}-{m:02}-{day:02} {time}")
}

/// A `<time>` in the zone the UTC switch asks for, its ISO 8601 form on
/// hover. Not reactive itself (a closure per row costs the bundle): a view
/// that shows times reads the switch, and is drawn again when it flips.
pub fn time_view(ms: i64, utc: bool) -> impl IntoView {
    let iso = retrace_core::format_rfc3339_ms(ms);
    view! { <time class="time" datetime=iso.clone() title=iso>{stamp(ms, utc, true)}</time> }
}
