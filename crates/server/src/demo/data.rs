//! The fixed part of the demo: places, products, packages and name pools.
//!
//! Over 500 lines on purpose: most of it is the demo's data (names, products,
//! places) as constant tables.

/// A country the demo's people and warehouses are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Country {
    /// Germany.
    De,
    /// United States.
    Us,
    /// Brazil (people need a CPF).
    Br,
    /// Netherlands.
    Nl,
    /// United Kingdom.
    Gb,
}

impl Country {
    /// ISO 3166-1 alpha-2 code.
    pub const fn code(self) -> &'static str {
        match self {
            Self::De => "DE",
            Self::Us => "US",
            Self::Br => "BR",
            Self::Nl => "NL",
            Self::Gb => "GB",
        }
    }

    /// Pricing region, currency and a rough rate from USD list prices.
    pub const fn pricing(self) -> (&'static str, &'static str, f64) {
        match self {
            Self::De | Self::Nl => ("EU", "EUR", 0.93),
            Self::Us => ("US", "USD", 1.0),
            Self::Br => ("BR", "BRL", 5.6),
            Self::Gb => ("UK", "GBP", 0.79),
        }
    }
}

/// A warehouse of the demo.
pub struct WarehouseSpec {
    /// Display name.
    pub name: &'static str,
    /// Street line 1.
    pub street1: &'static str,
    /// Street line 2.
    pub street2: Option<&'static str>,
    /// City.
    pub city: &'static str,
    /// State or province.
    pub province: &'static str,
    /// Postal code.
    pub postal_code: &'static str,
    /// Country.
    pub country: Country,
    /// Phone number.
    pub phone: Option<&'static str>,
    /// Run by the operator and granted to the organization.
    pub shared: bool,
}

/// Three owned warehouses and one shared (operator-run, granted) one.
pub const WAREHOUSES: &[WarehouseSpec] = &[
    WarehouseSpec {
        name: "Berlin Tempelhof Fulfilment",
        street1: "Columbiadamm 10",
        street2: Some("Halle 4"),
        city: "Berlin",
        province: "Berlin",
        postal_code: "12101",
        country: Country::De,
        phone: Some("+49 30 5550 1010"),
        shared: false,
    },
    WarehouseSpec {
        name: "Austin North Depot",
        street1: "2401 W Braker Ln",
        street2: Some("Suite 120"),
        city: "Austin",
        province: "TX",
        postal_code: "78758",
        country: Country::Us,
        phone: Some("+1 512-555-0142"),
        shared: false,
    },
    WarehouseSpec {
        name: "São Paulo Vila Leopoldina",
        street1: "Av. Mofarrej, 1200",
        street2: None,
        city: "São Paulo",
        province: "SP",
        postal_code: "05311-000",
        country: Country::Br,
        phone: Some("+55 11 5555-0188"),
        shared: false,
    },
    WarehouseSpec {
        name: "Operator EU Hub Rotterdam",
        street1: "Waalhaven Zuidzijde 19",
        street2: None,
        city: "Rotterdam",
        province: "Zuid-Holland",
        postal_code: "3089 JH",
        country: Country::Nl,
        phone: None,
        shared: true,
    },
];

/// Offices.
pub const OFFICES: &[&str] = &["Berlin HQ", "New York Office"];

/// What kind of product a SKU is, which decides serials, IMEIs and programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Laptop.
    Laptop,
    /// Mobile phone (IMEI).
    Phone,
    /// Monitor.
    Monitor,
    /// Headset.
    Headset,
    /// Keyboard and such: not serialized.
    Accessory,
}

impl Kind {
    /// Category code and name.
    pub const fn category(self) -> (&'static str, &'static str) {
        match self {
            Self::Laptop => ("LAPTOP", "Laptops"),
            Self::Phone => ("PHONE", "Mobile phones"),
            Self::Monitor => ("MONITOR", "Monitors"),
            Self::Headset => ("HEADSET", "Headsets"),
            Self::Accessory => ("ACCESSORY", "Accessories"),
        }
    }
}

/// A SKU of the demo.
pub struct SkuSpec {
    /// Display title.
    pub title: &'static str,
    /// Product kind.
    pub kind: Kind,
    /// Vendor code.
    pub vendor_code: &'static str,
    /// Vendor name.
    pub vendor_name: &'static str,
    /// Vendor's model number.
    pub vendor_sku: &'static str,
    /// List price in USD.
    pub price_usd: f64,
    /// How often it appears relative to the others.
    pub weight: u64,
    /// Serial number prefix.
    pub serial_prefix: &'static str,
    /// IMEI type allocation code (phones).
    pub tac: &'static str,
}

/// Twelve SKUs from the vendors a company really buys from.
pub const SKUS: &[SkuSpec] = &[
    SkuSpec {
        title: "MacBook Pro 14\" M3 Pro, 18 GB, 512 GB",
        kind: Kind::Laptop,
        vendor_code: "APPLE",
        vendor_name: "Apple",
        vendor_sku: "MRX33LL/A",
        price_usd: 1999.0,
        weight: 12,
        serial_prefix: "C02",
        tac: "",
    },
    SkuSpec {
        title: "MacBook Air 13\" M3, 16 GB, 512 GB",
        kind: Kind::Laptop,
        vendor_code: "APPLE",
        vendor_name: "Apple",
        vendor_sku: "MXCT3LL/A",
        price_usd: 1499.0,
        weight: 10,
        serial_prefix: "FVF",
        tac: "",
    },
    SkuSpec {
        title: "ThinkPad X1 Carbon Gen 12, Core Ultra 7, 32 GB",
        kind: Kind::Laptop,
        vendor_code: "LENOVO",
        vendor_name: "Lenovo",
        vendor_sku: "21KC0043US",
        price_usd: 1849.0,
        weight: 9,
        serial_prefix: "PF",
        tac: "",
    },
    SkuSpec {
        title: "Latitude 7450, Core Ultra 7, 16 GB",
        kind: Kind::Laptop,
        vendor_code: "DELL",
        vendor_name: "Dell",
        vendor_sku: "LAT7450-U7-16",
        price_usd: 1429.0,
        weight: 6,
        serial_prefix: "",
        tac: "",
    },
    SkuSpec {
        title: "iPhone 15, 128 GB, Black",
        kind: Kind::Phone,
        vendor_code: "APPLE",
        vendor_name: "Apple",
        vendor_sku: "MTP03LL/A",
        price_usd: 799.0,
        weight: 9,
        serial_prefix: "F17",
        tac: "35328211",
    },
    SkuSpec {
        title: "Galaxy S24, 256 GB, Onyx Black",
        kind: Kind::Phone,
        vendor_code: "SAMSUNG",
        vendor_name: "Samsung",
        vendor_sku: "SM-S921BZKGEUB",
        price_usd: 859.0,
        weight: 6,
        serial_prefix: "R5C",
        tac: "35260011",
    },
    SkuSpec {
        title: "UltraSharp 27 4K USB-C Hub Monitor",
        kind: Kind::Monitor,
        vendor_code: "DELL",
        vendor_name: "Dell",
        vendor_sku: "U2723QE",
        price_usd: 579.0,
        weight: 8,
        serial_prefix: "CN-0",
        tac: "",
    },
    SkuSpec {
        title: "ViewFinity S8 27\" 4K UHD Monitor",
        kind: Kind::Monitor,
        vendor_code: "SAMSUNG",
        vendor_name: "Samsung",
        vendor_sku: "LS27B800PXNXGO",
        price_usd: 429.0,
        weight: 4,
        serial_prefix: "0K5H",
        tac: "",
    },
    SkuSpec {
        title: "ThinkVision T27h-30 QHD Monitor",
        kind: Kind::Monitor,
        vendor_code: "LENOVO",
        vendor_name: "Lenovo",
        vendor_sku: "63A3GAR1US",
        price_usd: 349.0,
        weight: 4,
        serial_prefix: "V9",
        tac: "",
    },
    SkuSpec {
        title: "Zone Vibe 100 Wireless Headset",
        kind: Kind::Headset,
        vendor_code: "LOGITECH",
        vendor_name: "Logitech",
        vendor_sku: "981-001165",
        price_usd: 99.0,
        weight: 8,
        serial_prefix: "2216LZ",
        tac: "",
    },
    SkuSpec {
        title: "Evolve2 65 UC Stereo Headset",
        kind: Kind::Headset,
        vendor_code: "JABRA",
        vendor_name: "Jabra",
        vendor_sku: "26599-989-999",
        price_usd: 219.0,
        weight: 5,
        serial_prefix: "JB",
        tac: "",
    },
    SkuSpec {
        title: "MX Keys S Wireless Keyboard",
        kind: Kind::Accessory,
        vendor_code: "LOGITECH",
        vendor_name: "Logitech",
        vendor_sku: "920-011406",
        price_usd: 109.0,
        weight: 6,
        serial_prefix: "",
        tac: "",
    },
];

/// One entry of a demo package's contents: `quantity` of `kind`, the SKUs
/// at these indexes of [`SKUS`] preferred, in order.
pub struct ContentSpec {
    /// The category, as the kind's SKUs carry it.
    pub kind: Kind,
    /// Indexes into [`SKUS`] (each of `kind`).
    pub preferred: &'static [usize],
    /// Units.
    pub quantity: u8,
}

const fn content(kind: Kind, preferred: &'static [usize], quantity: u8) -> ContentSpec {
    ContentSpec {
        kind,
        preferred,
        quantity,
    }
}

/// Packages: slug, name and contents (a laptop, and a phone or a monitor
/// and the rest, as a joiner receives them).
pub const PACKAGES: &[(&str, &str, &[ContentSpec])] = &[
    (
        "engineering-mac",
        "Engineering (Mac)",
        &[
            content(Kind::Laptop, &[0, 1], 1),
            content(Kind::Monitor, &[6], 1),
            content(Kind::Headset, &[], 1),
        ],
    ),
    (
        "engineering-thinkpad",
        "Engineering (ThinkPad)",
        &[
            content(Kind::Laptop, &[2, 3], 1),
            content(Kind::Monitor, &[8, 6], 1),
            content(Kind::Accessory, &[11], 1),
        ],
    ),
    (
        "sales-standard",
        "Sales standard kit",
        &[
            content(Kind::Laptop, &[1], 1),
            content(Kind::Phone, &[4, 5], 1),
            content(Kind::Headset, &[10], 1),
        ],
    ),
];

/// Tags some items carry: label.
pub const TAGS: &[&str] = &[
    "loaner",
    "executive",
    "priority-refresh",
    "engineering",
    "sales",
    "encrypted",
    "spare",
    "conference-room",
];

/// Free-text descriptions some items carry.
pub const DESCRIPTIONS: &[&str] = &[
    "Primary work device",
    "Replacement for a device with a cracked screen",
    "Second screen for the home office",
    "Loaner for visitors and interns",
    "Upgraded RAM at purchase",
    "Pre-enrolled in device management",
    "Reserved for the next new joiner",
    "Keyboard layout: US international",
];

/// A person's name pool and address pool for one country.
pub struct Locale {
    /// Country.
    pub country: Country,
    /// Given names.
    pub given: &'static [&'static str],
    /// Family names.
    pub family: &'static [&'static str],
    /// Streets.
    pub streets: &'static [&'static str],
    /// (city, region, postal code prefix).
    pub cities: &'static [(&'static str, &'static str, &'static str)],
    /// Phone prefix.
    pub phone_prefix: &'static str,
    /// How often people come from here.
    pub weight: u64,
}

/// Where the demo's people live.
pub const LOCALES: &[Locale] = &[
    Locale {
        country: Country::De,
        given: &[
            "Anna",
            "Lukas",
            "Lea",
            "Jonas",
            "Mia",
            "Felix",
            "Sophie",
            "Paul",
            "Hannah",
            "Maximilian",
            "Clara",
            "Elias",
        ],
        family: &[
            "Müller",
            "Schmidt",
            "Schneider",
            "Fischer",
            "Weber",
            "Wagner",
            "Becker",
            "Hoffmann",
            "Schäfer",
            "Koch",
            "Richter",
            "Klein",
        ],
        streets: &[
            "Kastanienallee",
            "Schönhauser Allee",
            "Bergmannstraße",
            "Oranienstraße",
            "Leopoldstraße",
            "Sternschanze",
        ],
        cities: &[
            ("Berlin", "Berlin", "10"),
            ("München", "Bayern", "80"),
            ("Hamburg", "Hamburg", "20"),
        ],
        phone_prefix: "+49 151 ",
        weight: 30,
    },
    Locale {
        country: Country::Us,
        given: &[
            "Emily", "James", "Olivia", "Michael", "Ava", "Daniel", "Sophia", "Ethan", "Isabella",
            "Noah", "Maya", "Jackson",
        ],
        family: &[
            "Johnson",
            "Williams",
            "Brown",
            "Garcia",
            "Miller",
            "Davis",
            "Rodriguez",
            "Martinez",
            "Anderson",
            "Taylor",
            "Thomas",
            "Okafor",
        ],
        streets: &[
            "Maple Avenue",
            "Oak Street",
            "Congress Avenue",
            "Mission Street",
            "Elm Drive",
            "Lake Shore Drive",
        ],
        cities: &[
            ("Austin", "TX", "787"),
            ("New York", "NY", "100"),
            ("San Francisco", "CA", "941"),
        ],
        phone_prefix: "+1 512-555-",
        weight: 35,
    },
    Locale {
        country: Country::Br,
        given: &[
            "João", "Maria", "Pedro", "Ana", "Lucas", "Juliana", "Gabriel", "Beatriz", "Rafael",
            "Larissa",
        ],
        family: &[
            "Silva", "Santos", "Oliveira", "Souza", "Pereira", "Costa", "Almeida", "Ferreira",
            "Ribeiro", "Carvalho",
        ],
        streets: &[
            "Rua Augusta",
            "Rua Harmonia",
            "Avenida Paulista",
            "Rua Oscar Freire",
            "Rua da Consolação",
        ],
        cities: &[
            ("São Paulo", "SP", "01"),
            ("Rio de Janeiro", "RJ", "22"),
            ("Belo Horizonte", "MG", "30"),
        ],
        phone_prefix: "+55 11 9",
        weight: 15,
    },
    Locale {
        country: Country::Nl,
        given: &[
            "Daan", "Emma", "Sem", "Julia", "Lars", "Tess", "Bram", "Fleur",
        ],
        family: &[
            "de Jong",
            "Jansen",
            "de Vries",
            "van den Berg",
            "Bakker",
            "Visser",
            "Smit",
            "Meijer",
        ],
        streets: &[
            "Prinsengracht",
            "Keizersgracht",
            "Witte de Withstraat",
            "Oudegracht",
        ],
        cities: &[
            ("Amsterdam", "Noord-Holland", "10"),
            ("Rotterdam", "Zuid-Holland", "30"),
            ("Utrecht", "Utrecht", "35"),
        ],
        phone_prefix: "+31 6 ",
        weight: 10,
    },
    Locale {
        country: Country::Gb,
        given: &[
            "Oliver", "Amelia", "George", "Isla", "Harry", "Ava", "Jack", "Freya",
        ],
        family: &[
            "Smith", "Jones", "Taylor", "Evans", "Walker", "Wright", "Patel", "Hughes",
        ],
        streets: &[
            "Baker Street",
            "Camden High Street",
            "Deansgate",
            "Bold Street",
        ],
        cities: &[
            ("London", "Greater London", "N1 "),
            ("Manchester", "Greater Manchester", "M1 "),
            ("Bristol", "Bristol", "BS1 "),
        ],
        phone_prefix: "+44 7700 ",
        weight: 10,
    },
];

/// Lower-case ASCII form of a name for an email address (`João` → `joao`,
/// `Müller` → `mueller`, `de Jong` → `dejong`).
pub fn email_part(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        match c {
            'a'..='z' | '0'..='9' => out.push(c),
            'á' | 'à' | 'â' | 'ã' => out.push('a'),
            'ä' => out.push_str("ae"),
            'é' | 'è' | 'ê' | 'ë' => out.push('e'),
            'í' | 'ì' | 'î' | 'ï' => out.push('i'),
            'ó' | 'ò' | 'ô' | 'õ' => out.push('o'),
            'ö' => out.push_str("oe"),
            'ú' | 'ù' | 'û' => out.push('u'),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            'ç' => out.push('c'),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_parts_are_ascii() {
        assert_eq!(email_part("João"), "joao");
        assert_eq!(email_part("Müller"), "mueller");
        assert_eq!(email_part("de Jong"), "dejong");
        assert_eq!(email_part("Schäfer"), "schaefer");
        for l in LOCALES {
            for n in l.given.iter().chain(l.family) {
                assert!(!email_part(n).is_empty(), "{n}");
            }
        }
    }

    #[test]
    fn there_are_a_dozen_skus_and_one_shared_warehouse() {
        assert_eq!(SKUS.len(), 12);
        assert_eq!(WAREHOUSES.iter().filter(|w| w.shared).count(), 1);
        assert!(SKUS
            .iter()
            .filter(|s| s.kind == Kind::Phone)
            .all(|s| s.tac.len() == 8));
    }
}
