//! The content of the emails equip sends, as plain data: subject, plain text
//! and HTML. Headers, MIME structure and delivery belong to the server's mail
//! transports; this module only decides what the message says.
//!
//! A reminder email carries the new joiner's own data only: their name, start
//! date and equipment package name.

use chrono::NaiveDate;

use crate::error::DomainError;
use crate::orders::OrderStatus;
use crate::person::Person;

/// The content of one email.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailContent {
    /// Recipient address.
    pub recipient: String,
    /// Subject line (one line, no control characters).
    pub subject: String,
    /// Plain-text body.
    pub text: String,
    /// HTML body (every value escaped).
    pub html: String,
}

/// The name a person is greeted with: the display name, else given and family
/// name, else the user name.
#[must_use]
pub fn greeting_name(person: &Person) -> String {
    let clean = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    if let Some(d) = clean(&person.display_name) {
        return d;
    }
    let parts: Vec<String> = [clean(&person.given_name), clean(&person.family_name)]
        .into_iter()
        .flatten()
        .collect();
    if parts.is_empty() {
        person.user_name.trim().to_owned()
    } else {
        parts.join(" ")
    }
}

/// The start date as people read it, e.g. `Monday, 23 November 2026`.
#[must_use]
pub fn long_date(date: NaiveDate) -> String {
    date.format("%A, %-d %B %Y").to_string()
}

/// Escapes text for HTML element content and attribute values.
#[must_use]
pub fn escape_html(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Removes control characters (a subject is one header line).
fn one_line(raw: &str) -> String {
    raw.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The reminder email to a new joiner: sent to their primary email, greeting
/// them by name, with their start date and their equipment package's name
/// (`package_name`; `None` when no package is assigned yet).
///
/// # Errors
/// [`DomainError::Conflict`] (`person`) when the person has no email address
/// or no start date (a new joiner always has both).
pub fn reminder_email(
    person: &Person,
    package_name: Option<&str>,
    order: Option<OrderStatus>,
) -> Result<EmailContent, DomainError> {
    let recipient = person
        .primary_email()
        .map(|e| e.value.trim().to_owned())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            DomainError::conflict(
                "person",
                format!("person {} has no email address", person.id),
            )
        })?;
    let start = person.start_date.ok_or_else(|| {
        DomainError::conflict("person", format!("person {} has no start date", person.id))
    })?;
    let name = one_line(&greeting_name(person));
    let date = long_date(start);
    let package = package_name.map(one_line).filter(|p| !p.is_empty());

    let subject = format!("Welcome aboard, {name}: your equipment for {date}");
    let package_line = match &package {
        Some(p) => format!("Your equipment package: {p}."),
        None => "Your equipment package has not been chosen yet; your IT team will be in touch."
            .to_owned(),
    };
    let order_line = crate::reminder::order_sentence(order);
    let text = format!(
        "Hello {name},\n\
         \n\
         Welcome! Your first day is {date}.\n\
         \n\
         {package_line}\n\
         {order_line}\n\
         \n\
         Please make sure your delivery address and phone number are up to date so\n\
         that your equipment arrives before you start.\n\
         \n\
         See you soon!\n"
    );
    let package_html = match &package {
        Some(p) => format!(
            "Your equipment package: <strong>{}</strong>.",
            escape_html(p)
        ),
        None => escape_html(&package_line),
    };
    let html = format!(
        "<!DOCTYPE html>\n\
         <html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body>\n\
         <p>Hello {name},</p>\n\
         <p>Welcome! Your first day is <strong>{date}</strong>.</p>\n\
         <p>{package_html}</p>\n\
         <p>{order_html}</p>\n\
         <p>Please make sure your delivery address and phone number are up to date so \
         that your equipment arrives before you start.</p>\n\
         <p>See you soon!</p>\n\
         </body></html>\n",
        title = escape_html(&subject),
        name = escape_html(&name),
        date = escape_html(&date),
        order_html = escape_html(&order_line),
    );
    Ok(EmailContent {
        recipient,
        subject,
        text,
        html,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::ids::{OrganizationId, PersonId};
    use crate::person::{Email, PersonStatus};

    fn person() -> Person {
        let now = Utc::now();
        Person {
            id: PersonId::new(),
            organization_id: OrganizationId::new(),
            external_id: None,
            user_name: "ana@example.com".into(),
            given_name: Some("Ana".into()),
            family_name: Some("O'Brien <b>".into()),
            display_name: None,
            emails: vec![
                Email {
                    value: "home@example.org".into(),
                    kind: Some("home".into()),
                    primary: false,
                },
                Email {
                    value: "ana@example.com".into(),
                    kind: Some("work".into()),
                    primary: true,
                },
            ],
            phone_numbers: vec![],
            addresses: vec![],
            active: true,
            package_id: None,
            start_date: NaiveDate::from_ymd_opt(2026, 11, 23),
            status: PersonStatus::Active,
            skip_user_activation: None,
            cpf_number: Some("secret-cpf".into()),
            profile: Default::default(),
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[test]
    fn goes_to_the_primary_email_with_name_date_and_package() {
        let e = reminder_email(
            &person(),
            Some("Engineering Mac"),
            Some(OrderStatus::Shipped),
        )
        .unwrap();
        assert!(
            e.text.contains("Your equipment order: SHIPPED"),
            "{}",
            e.text
        );
        assert!(
            e.html.contains("Your equipment order: SHIPPED"),
            "{}",
            e.html
        );
        assert_eq!(e.recipient, "ana@example.com");
        assert!(e.subject.contains("Ana O'Brien <b>"), "{}", e.subject);
        assert!(e.text.contains("Hello Ana O'Brien <b>,"));
        assert!(e.text.contains("Monday, 23 November 2026"));
        assert!(e.text.contains("Engineering Mac"));
        assert!(e.html.contains("Ana O&#39;Brien &lt;b&gt;"), "{}", e.html);
        assert!(!e.html.contains("<b>"));
        assert!(e.html.contains("<strong>Engineering Mac</strong>"));
        assert!(e.html.contains("Monday, 23 November 2026"));
        // Nothing else of the person.
        for body in [&e.text, &e.html] {
            assert!(!body.contains("secret-cpf"));
            assert!(!body.contains("home@example.org"));
        }
    }

    #[test]
    fn without_package_or_names_it_still_reads_well() {
        let mut p = person();
        p.given_name = None;
        p.family_name = None;
        let e = reminder_email(&p, None, None).unwrap();
        assert!(e.text.starts_with("Hello ana@example.com,"));
        assert!(e.text.contains("no order yet"), "{}", e.text);
        assert!(e.text.contains("has not been chosen yet"));
        p.display_name = Some("  Ana\r\nB  ".into());
        let e = reminder_email(&p, Some("Kit\nA"), None).unwrap();
        assert!(
            e.subject.starts_with("Welcome aboard, Ana B:"),
            "{}",
            e.subject
        );
        assert!(!e.subject.contains('\n'));
        assert!(e.text.contains("Kit A"));
    }

    #[test]
    fn needs_an_email_and_a_start_date() {
        let mut p = person();
        p.start_date = None;
        assert!(matches!(
            reminder_email(&p, None, None),
            Err(DomainError::Conflict { .. })
        ));
        let mut p = person();
        p.emails.clear();
        assert!(matches!(
            reminder_email(&p, None, None),
            Err(DomainError::Conflict { .. })
        ));
    }
}
