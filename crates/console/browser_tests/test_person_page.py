"""A person's page whatever their status (issue 48): a leaver's page opens
(SCIM answers 404 for them; the console reads `GET /api/v1/people/{id}`)
with their name, their status in words and their return; a key with only
`people:read` and `returns:read` names leavers, never "(left)"; the package
is a link to its page, with its contents; axe-core finds nothing on the page
at desktop and phone widths. In a real Chromium against a real `equip serve`
with demo data, once per backend.
"""

from __future__ import annotations

import os
import re

from playwright.sync_api import expect

from conftest import PHONE, create_key
from test_console import accessible

EXT = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"
WIDE = {"width": 1366, "height": 860}


def new_person(server, run: str, **ext) -> dict:
    body = {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
        "userName": f"gone.{run}@console.example",
        "name": {"givenName": "Leah", "familyName": f"Gone{run}"},
        EXT: ext,
    }
    status, user = server.api("POST", "/scim/v2/Users", body=body)
    assert status == 201, user
    return user


def leaver(server, run: str) -> tuple[dict, dict]:
    """A person holding an item, offboarded over SCIM (OFFBOARDING); them and
    their return order."""
    user = new_person(server, run)
    _, available = server.api("GET", "/api/v1/inventory", query={"deployStatuses": "AVAILABLE", "size": "1"})
    item = available["data"][0]
    status, changed = server.api(
        "PATCH", f"/api/v1/inventory/{item['id']}", body={"deployStatus": "DEPLOYED", "assignedTo": {"type": "PERSON", "id": user["id"]}}
    )
    assert status == 200, changed
    status, _ = server.api("DELETE", f"/scim/v2/Users/{user['id']}")
    assert status == 204
    status, _ = server.api("GET", f"/scim/v2/Users/{user['id']}")
    assert status == 404, "SCIM no longer shows a leaver"
    _, returns = server.api("GET", "/api/v1/return-orders", query={"personId": user["id"]})
    assert len(returns["data"]) == 1
    return user, returns["data"][0]


def accessible_at_both_widths(console, what: str) -> None:
    page = console.page
    for viewport in (WIDE, PHONE):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(150)
        accessible(console, f"{what} at {viewport['width']} px")
    page.set_viewport_size(WIDE)


def test_a_leavers_page_opens_with_their_name_status_and_return(console):
    server = console.server
    run = os.urandom(4).hex()
    user, order = leaver(server, run)
    page = console.sign_in().page
    console.go(f"#/people/{user['id']}")
    expect(console.heading()).to_have_text(f"Leah Gone{run}")
    expect(page.locator(".error")).to_have_count(0)
    # One status, in words, with when it started; no "Active Yes/No" beside it.
    expect(page.locator(".person-status")).to_have_text(re.compile(r"^Leaving since \d{4}-\d\d-\d\d \d\d:\d\d$"))
    expect(page.locator(".facts dt", has_text="Active")).to_have_count(0)
    expect(page.locator(".facts")).to_contain_text(user["userName"])
    # Their return, linked; no Offboard button for a leaver.
    returns = page.locator("section[aria-labelledby=returns-title]")
    expect(returns.locator("a.return-link")).to_have_attribute("href", f"#/returns/{order['id']}")
    expect(returns).to_contain_text("Pending")
    expect(page.get_by_role("button", name="Offboard…")).to_have_count(0)
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    accessible_at_both_widths(console, "a leaver's page")
    console.shoot("person-leaver")


def test_a_people_and_returns_reader_names_leavers(console):
    server = console.server
    run = os.urandom(4).hex()
    user, order = leaver(server, run)
    key, _ = create_key(server.database_url, server.org, "People and returns reader", "--scope", "people:read", "--scope", "returns:read")
    page = console.sign_in(key).page
    # The return's page names the leaver and links to their page.
    console.go(f"#/returns/{order['id']}")
    link = page.locator("a.person-link", has_text=f"Leah Gone{run}").first
    expect(link).to_have_attribute("href", f"#/people/{user['id']}")
    expect(page.locator("main")).not_to_contain_text("(left)")
    # The returns list names them too.
    console.go(f"#/returns?personId={user['id']}")
    expect(page.locator("main")).to_contain_text(f"Leah Gone{run}")
    expect(page.locator("main")).not_to_contain_text("(left)")
    # Their page opens for this key (People needs people:read or scim).
    console.go(f"#/people/{user['id']}")
    expect(console.heading()).to_have_text(f"Leah Gone{run}")
    expect(page.locator(".person-status")).to_contain_text("Leaving since")
    # People lists the directory for a key without scim, leavers included.
    console.go(f"#/people?q=Gone{run}")
    expect(page.locator("#result-count")).to_have_text("1 people")
    expect(page.locator("a.person-link", has_text=f"Leah Gone{run}")).to_have_attribute("href", f"#/people/{user['id']}")


def test_the_package_is_a_link_with_its_contents_and_no_order_says_what_to_do(console):
    server = console.server
    run = os.urandom(4).hex()
    _, packages = server.api("GET", "/api/v1/packages")
    package = next(p for p in packages["data"] if p["items"])
    joiner = new_person(server, run, packageId=package["id"])
    nobody = new_person(server, run + "n")
    page = console.sign_in().page
    console.go(f"#/people/{joiner['id']}")
    expect(console.heading()).to_have_text(f"Leah Gone{run}")
    expect(page.locator(".person-status")).to_have_text("Active")
    links = page.locator(".facts a.package-link")
    expect(links).to_have_count(2)  # their own package, which is also the effective one
    expect(links.first).to_have_attribute("href", f"#/packages/{package['id']}")
    expect(links.first).to_contain_text(package["name"])
    expect(page.locator(".facts .contents li")).to_have_count(len(package["items"]))
    # Given a package with contents, they have a joiner's order, linked.
    _, orders = server.api("GET", "/api/v1/orders", query={"personId": joiner["id"]})
    assert len(orders["data"]) == 1, orders
    expect(page.locator("section[aria-labelledby=order-title] a.order-link")).to_have_attribute("href", f"#/orders/{orders['data'][0]['id']}")
    accessible_at_both_widths(console, "a person's page with a package")
    # The package link opens the package's page.
    links.first.click()
    expect(page).to_have_url(re.compile(f"#/packages/{package['id']}$"))
    # Someone without a package has no order: the page says how one is made and links to their orders.
    console.go(f"#/people/{nobody['id']}")
    expect(console.heading()).to_have_text(f"Leah Gone{run}n")
    section = page.locator("section[aria-labelledby=order-title]")
    expect(section.locator(".no-order")).to_have_text("No order.")
    expect(section).to_contain_text("given a package with contents")
    expect(section.locator("a.person-orders-link")).to_have_attribute("href", f"#/orders?personId={nobody['id']}")
    expect(page.locator(".facts a.package-link")).to_have_count(0)
