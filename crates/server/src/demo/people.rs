//! The demo's people: names and addresses from a handful of countries, valid
//! CPFs for the Brazilians, some new joiners (start date ahead), a few
//! offboarding and a few deactivated by the identity provider.

use std::collections::HashSet;

use chrono::{Duration, NaiveTime};

use equip_domain::ids::{PackageId, PersonId};
use equip_domain::person::{Address, Email, Person, PersonStatus, PhoneNumber};

use super::data::{email_part, Country, Locale, LOCALES};
use super::prng::SplitMix64;
use super::{kind, Generator, PersonRef};

/// A CPF number with valid check digits, formatted `123.456.789-09`.
pub fn cpf(rng: &mut SplitMix64) -> String {
    let mut digits: Vec<u32> = (0..9).map(|_| rng.below(10) as u32).collect();
    if digits.iter().all(|d| *d == digits[0]) {
        digits[0] = (digits[0] + 1) % 10;
    }
    for len in [9usize, 10] {
        let sum: u32 = digits
            .iter()
            .enumerate()
            .map(|(i, d)| d * (len as u32 + 1 - i as u32))
            .sum();
        let rest = (sum * 10) % 11;
        digits.push(if rest == 10 { 0 } else { rest });
    }
    let s: String = digits
        .iter()
        .filter_map(|d| char::from_digit(*d, 10))
        .collect();
    format!("{}.{}.{}-{}", &s[..3], &s[3..6], &s[6..9], &s[9..])
}

/// The email domain for an organization name: `Demo Org` → `demo-org.example`.
pub fn email_domain(organization_name: &str) -> String {
    let words: Vec<String> = organization_name
        .split_whitespace()
        .map(email_part)
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        "demo.example".to_owned()
    } else {
        format!("{}.example", words.join("-"))
    }
}

fn address(rng: &mut SplitMix64, locale: &Locale) -> Address {
    let (city, region, postal_prefix) = *rng.pick(locale.cities);
    let street = *rng.pick(locale.streets);
    let number = rng.between(1, 240);
    let street_address = match locale.country {
        Country::Us | Country::Gb => {
            let line = format!("{number} {street}");
            if rng.percent(30) {
                format!("{line}\nApt {}", rng.between(1, 40))
            } else {
                line
            }
        }
        Country::Br => format!("{street}, {number}\nApto {}", rng.between(11, 182)),
        Country::De | Country::Nl => {
            let line = format!("{street} {number}");
            if rng.percent(25) {
                format!("{line}\nHinterhaus, {}. OG", rng.between(1, 5))
            } else {
                line
            }
        }
    };
    let postal_code = match locale.country {
        Country::Br => format!("{postal_prefix}{}-{}", rng.digits(3), rng.digits(3)),
        Country::Us => format!("{postal_prefix}{}", rng.digits(5 - postal_prefix.len())),
        Country::Gb => format!(
            "{postal_prefix}{}{}",
            rng.digits(1),
            rng.chars(b"ABDEFGHJLNPQRSTUWXYZ", 2)
        ),
        Country::Nl => format!(
            "{postal_prefix}{} {}",
            rng.digits(2),
            rng.chars(b"ABCDEFGHJKLMNPRSTVWXZ", 2)
        ),
        Country::De => format!("{postal_prefix}{}", rng.digits(5 - postal_prefix.len())),
    };
    Address {
        kind: Some("home".to_owned()),
        primary: true,
        country: Some(locale.country.code().to_owned()),
        street_address: Some(street_address),
        postal_code: Some(postal_code),
        region: Some(region.to_owned()),
        locality: Some(city.to_owned()),
    }
}

/// Generates the people and records them in `gen` for the items.
pub fn generate(gen: &mut Generator, packages: &[PackageId]) -> Vec<Person> {
    let count = gen.people_count();
    let domain = email_domain(&gen.config.organization_name);
    let weights: Vec<(usize, u64)> = LOCALES
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.weight))
        .collect();
    let mut taken: HashSet<String> = HashSet::with_capacity(count);
    let mut people = Vec::with_capacity(count);
    for i in 0..count {
        let rng = &mut gen.rng;
        let locale = &LOCALES[rng.weighted(&weights)];
        let given = *rng.pick(locale.given);
        let family = *rng.pick(locale.family);
        let local = format!("{}.{}", email_part(given), email_part(family));
        let mut user_name = format!("{local}@{domain}");
        let mut n = 2;
        while !taken.insert(user_name.clone()) {
            user_name = format!("{local}{n}@{domain}");
            n += 1;
        }
        // Roughly one in eight is a new joiner starting within the next ten weeks.
        let new_joiner = rng.percent(12);
        let start_date = if new_joiner {
            gen.today + Duration::days(rng.between(3, 70))
        } else {
            gen.today - Duration::days(rng.between(20, 2_500))
        };
        let offboarding = !new_joiner && rng.percent(5);
        let active = offboarding || !rng.percent(3);
        let created_at = (start_date - Duration::days(rng.between(7, 30)))
            .and_time(NaiveTime::MIN)
            .and_utc()
            + Duration::minutes(rng.between(8 * 60, 18 * 60));
        let created_at = created_at.min(gen.config.now);
        let updated_at = (created_at + Duration::days(rng.between(0, 400))).min(gen.config.now);
        let mut emails = vec![Email {
            value: user_name.clone(),
            kind: Some("work".to_owned()),
            primary: true,
        }];
        if rng.percent(25) {
            emails.push(Email {
                value: format!("{}{}@mail.example", local, rng.between(1, 99)),
                kind: Some("home".to_owned()),
                primary: false,
            });
        }
        let phone_numbers = if rng.percent(70) {
            vec![PhoneNumber {
                value: format!("{}{}", locale.phone_prefix, rng.digits(7)),
                kind: Some("mobile".to_owned()),
                primary: true,
            }]
        } else {
            Vec::new()
        };
        let brazilian = locale.country == Country::Br;
        let addresses = if brazilian || rng.percent(85) {
            vec![address(rng, locale)]
        } else {
            Vec::new()
        };
        let package_id = match rng.below(10) {
            0..=3 => Some(packages[0]),
            4..=6 => Some(packages[1]),
            7..=8 => Some(packages[2]),
            _ => None,
        };
        let skip_user_activation = match rng.below(10) {
            0 => Some(true),
            1 | 2 => None,
            _ => Some(false),
        };
        let external_id = rng.percent(70).then(|| {
            format!(
                "00u{}",
                rng.chars(
                    b"abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                    17
                )
            )
        });
        let cpf_number = brazilian.then(|| cpf(rng));
        let id = gen.ids.id(kind::PERSON, i as u64);
        gen.people.push(PersonRef {
            id,
            country: locale.country,
            offboarding,
        });
        people.push(Person {
            id: PersonId::from_uuid(id),
            organization_id: gen.config.organization,
            external_id,
            user_name,
            given_name: Some(given.to_owned()),
            family_name: Some(family.to_owned()),
            display_name: Some(format!("{given} {family}")),
            emails,
            phone_numbers,
            addresses,
            active,
            package_id,
            start_date: Some(start_date),
            status: if offboarding {
                PersonStatus::Offboarding
            } else {
                PersonStatus::Active
            },
            skip_user_activation,
            cpf_number,
            profile: Default::default(),
            created_at,
            updated_at,
            version: 1,
        });
    }
    people
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use equip_domain::person::is_valid_cpf;

    #[test]
    fn generated_cpfs_are_valid() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..1_000 {
            let c = cpf(&mut rng);
            assert!(is_valid_cpf(&c), "{c}");
            assert_eq!(c.len(), 14);
        }
    }

    #[test]
    fn email_domains() {
        assert_eq!(email_domain("Demo Org"), "demo-org.example");
        assert_eq!(
            email_domain("Müller & Söhne GmbH"),
            "mueller-soehne-gmbh.example"
        );
        assert_eq!(email_domain("!!!"), "demo.example");
    }
}
