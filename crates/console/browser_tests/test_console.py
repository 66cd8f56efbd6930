"""The console in a real Chromium against a real `equip serve` with demo data.

Each test runs once per backend (the `server` fixture). What the console shows
is compared with what the API answers for the same key.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import re
import urllib.request
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

EXT = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"
HEADER = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number"
WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


def item_ids(page) -> list[str]:
    return [href.rsplit("/", 1)[-1] for href in page.locator("a.item-link").evaluate_all("as => as.map(a => a.getAttribute('href'))")]


def accessible(console, what: str):
    """No WCAG 2.1 A/AA violation that axe-core finds on the current screen."""
    results = Axe().run(console.page, options=WCAG_AA)
    assert results.violations_count == 0, f"{what}:\n{results.generate_snapshot()}\n" + json.dumps(
        [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"][:3]]} for v in results.response["violations"]], indent=1
    )


def test_the_page_is_served_with_a_strict_policy(server):
    with urllib.request.urlopen(f"{server.base}/console/") as res:
        csp = res.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert res.headers["X-Frame-Options"] == "DENY"
        assert res.headers["X-Content-Type-Options"] == "nosniff"


def test_sign_in_shows_the_keys_scopes_and_the_inventory(console):
    page = console.open().page
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    accessible(console, "sign-in")
    console.shoot("sign-in")
    page.get_by_label("API key").fill("equip_not_a_real_key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".error")).to_contain_text("401")
    assert page.evaluate("sessionStorage.length") == 0
    console.sign_in()
    expect(console.heading()).to_have_text("Overview")
    expect(page.locator("#key-summary")).to_contain_text("demo")
    page.locator("#key-summary").click()
    chips = page.locator("#key-scopes li").all_inner_texts()
    status, key = console.server.api("GET", "/api/v1/api-key")
    assert status == 200
    assert sorted(chips) == sorted(key["scopes"])
    # The console knows every scope equip has (the demo key holds them all).
    known = page.evaluate("async () => Object.keys((await import('./js/scopes.js')).SCOPES)")
    assert sorted(known) == sorted(key["scopes"])
    page.locator("#key-summary").click()
    for area in ["Inventory", "People", "CSV upload", "Warehouses", "Inventory levels"]:
        expect(page.get_by_role("link", name=area, exact=True)).to_be_visible()
    # The key is in this tab's sessionStorage only.
    assert page.evaluate("sessionStorage.getItem('equip.key')") == console.server.keys["all"]
    assert page.evaluate("localStorage.length") == 0


def test_a_filtered_and_sorted_listing_is_the_apis_answer(console):
    page = console.sign_in().page
    console.go("#/inventory")
    expect(page.locator("#result-count")).to_be_visible()
    accessible(console, "inventory")
    console.shoot("inventory")
    page.get_by_label("Deployed").check()
    expect(page).to_have_url(re.compile(r"deployStatuses=DEPLOYED"))
    page.get_by_label("Sort by").select_option("serialNumber")
    page.get_by_label("Order").select_option("ASC")
    page.get_by_label("Page size").select_option("10")
    expect(page).to_have_url(re.compile(r"size=10"))
    status, answer = console.server.api(
        "GET",
        "/api/v1/inventory",
        query={"deployStatuses": "DEPLOYED", "sortBy": "serialNumber", "sortDirection": "ASC", "size": "10"},
    )
    assert status == 200 and answer["data"]
    expected = [i["id"] for i in answer["data"]]
    expect(page.locator("#result-count")).to_have_text(f"{answer['pagination']['totalRecords']} items")
    page.wait_for_function("n => document.querySelectorAll('a.item-link').length === n", arg=len(expected))
    assert item_ids(page) == expected
    # Page 2 is the API's page 2.
    page.get_by_role("button", name="Next ›").click()
    expect(page).to_have_url(re.compile(r"page=2"))
    _, second = console.server.api(
        "GET",
        "/api/v1/inventory",
        query={"deployStatuses": "DEPLOYED", "sortBy": "serialNumber", "sortDirection": "ASC", "size": "10", "page": "2"},
    )
    page.wait_for_function("id => document.querySelector('a.item-link')?.getAttribute('href').endsWith(id)", arg=second["data"][0]["id"])
    assert item_ids(page) == [i["id"] for i in second["data"]]
    # The view is in the URL: a colleague who opens it signs in (the key is
    # never in the URL, and sessionStorage is the tab's) and sees that view.
    shared = page.url
    assert console.server.keys["all"] not in shared
    other = page.context.new_page()
    other.goto(shared)
    other.get_by_label("API key").fill(console.server.keys["all"])
    other.get_by_role("button", name="Sign in").click()
    other.wait_for_function("id => document.querySelector('a.item-link')?.getAttribute('href').endsWith(id)", arg=second["data"][0]["id"])
    assert item_ids(other) == [i["id"] for i in second["data"]]
    expect(other.get_by_label("Deployed")).to_be_checked()
    other.close()
    # An item's detail and its history.
    page.locator("a.item-link").first.click()
    expect(page).to_have_url(re.compile(r"#/inventory/[0-9a-f-]{36}$"))
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    # Newest first, as the API answers the item's history.
    _, history = console.server.api("GET", f"/api/v1/inventory/{second['data'][0]['id']}/history")
    expect(page.locator(".history li").first).to_contain_text(history["data"][0]["type"])
    accessible(console, "item")
    console.shoot("item")
    page.get_by_role("link", name="‹ Inventory").click()
    expect(page).to_have_url(re.compile(r"page=2"))


def test_the_filters_offer_what_the_api_takes(console):
    """Every parameter of the listing in the OpenAPI document has its field,
    named as the parameter, with the document's values."""
    page = console.sign_in().page
    console.go("#/inventory")
    expect(page.locator("#result-count")).to_be_visible()
    with urllib.request.urlopen(f"{console.server.base}/openapi.json") as res:
        spec = json.load(res)
    params = {p["name"]: p for p in spec["paths"]["/api/v1/inventory"]["get"]["parameters"]}
    form = page.locator("form.filters")
    names = set(form.locator("[name]").evaluate_all("es => es.map(e => e.name)"))
    assert set(params) - {"page"} == names, "the pager sets page"
    statuses = form.locator("input[name=deployStatuses]").evaluate_all("es => es.map(e => e.value)")
    assert sorted(statuses) == sorted(params["deployStatuses"]["schema"]["items"]["enum"])
    sorts = form.locator("select[name=sortBy] option").evaluate_all("os => os.map(o => o.value)")
    assert sorted(sorts) == sorted(params["sortBy"]["schema"]["enum"])
    directions = form.locator("select[name=sortDirection] option").evaluate_all("os => os.map(o => o.value)")
    assert sorted(directions) == sorted(params["sortDirection"]["schema"]["enum"])


def test_an_invalid_filter_shows_the_apis_detail(console):
    page = console.sign_in().page
    console.go("#/inventory?updatedAtFrom=yesterday")
    # The parameter named in words.
    expect(page.locator(".error")).to_contain_text("Updated at from: 'yesterday' is not a UTC date-time")
    expect(page.locator(".error")).to_contain_text("400")


def test_search_as_you_type(console):
    page = console.sign_in().page
    console.go("#/inventory")
    _, some = console.server.api("GET", "/api/v1/inventory", query={"size": "1", "sortBy": "serialNumber", "sortDirection": "DESC"})
    serial = some["data"][0]["serialNumber"]
    term = serial[:6]
    _, answer = console.server.api("GET", "/api/v1/inventory", query={"searchString": term, "size": "25"})
    search = page.get_by_role("searchbox", name="Search")
    search.press_sequentially(term, delay=40)
    expect(page).to_have_url(re.compile(r"searchString=" + re.escape(term)))
    expect(page.locator("#result-count")).to_have_text(f"{answer['pagination']['totalRecords']} items")
    page.wait_for_function("n => document.querySelectorAll('a.item-link').length === n", arg=len(answer["data"]))
    assert item_ids(page) == [i["id"] for i in answer["data"]]
    # Typing kept the focus in the search box.
    assert page.evaluate("document.activeElement.id") == "f-searchString"


def test_people_search_and_a_persons_detail(console):
    page = console.sign_in().page
    page.get_by_role("link", name="People", exact=True).click()
    expect(page.locator("#result-count")).to_be_visible()
    accessible(console, "people")
    console.shoot("people")
    _, some = console.server.api("GET", "/scim/v2/Users", query={"count": "1", "sortBy": "name.familyName"})
    user = some["Resources"][0]
    family = user["name"]["familyName"]
    _, expected = console.server.api(
        "GET",
        "/scim/v2/Users",
        query={"filter": f'userName co "{family}" or name.givenName co "{family}" or name.familyName co "{family}"', "count": "25"},
    )
    page.get_by_role("searchbox", name="Search").press_sequentially(family, delay=30)
    expect(page.locator("#result-count")).to_have_text(f"{expected['totalResults']} people")
    page.get_by_role("link", name=re.compile(re.escape(family))).first.click()
    expect(page).to_have_url(re.compile(r"#/people/[0-9a-f-]{36}$"))
    person_id = page.url.rsplit("/", 1)[-1]
    _, shown = console.server.api("GET", f"/scim/v2/Users/{person_id}")
    facts = page.locator(".facts")
    expect(facts).to_contain_text(shown["userName"])
    effective = shown[EXT].get("effectivePackageId")
    if effective:
        # The package by its name, not its id.
        _, package = console.server.api("GET", f"/api/v1/packages/{effective}")
        expect(facts.locator("dd", has_text=package["name"])).to_have_count(2 if shown[EXT].get("packageId") == effective else 1)
    groups = sorted(g["display"] for g in shown.get("groups", []))
    chips = sorted(facts.locator(".chip").all_inner_texts())
    assert chips == groups
    _, items = console.server.api("GET", "/api/v1/inventory", query={"personId": person_id, "size": "100"})
    section = page.locator("section[aria-labelledby=items-title]")
    if items["data"]:
        expect(section.locator("tbody tr")).to_have_count(len(items["data"]))
        hrefs = section.locator("tbody a").evaluate_all("as => as.map(a => a.getAttribute('href').split('/').pop())")
        assert hrefs == [i["id"] for i in items["data"]]
    else:
        expect(section).to_contain_text("No items are assigned")


def test_a_csv_upload_reports_each_row_failures_first(console, tmp_path):
    page = console.sign_in().page
    run = os.urandom(4).hex()
    good1 = f"ada.{run}@console.example"
    good2 = f"grace.{run}@console.example"
    # Rows as spreadsheets write them: a quoted comma, a quote inside an
    # unquoted cell (text, for equip as for the console), a row of blanks
    # (skipped by both, but it keeps its row number: rows are numbered as a
    # spreadsheet shows them, the header being row 1).
    rows = [
        f",Ada,Lovelace,{good1},,,1 Main St,,CA,San Francisco,US,94105,+1 555 0100,yes,",
        f",Bea,Costa,bea.{run}@console.example,,,,,,,BR,,,,",
        "  , ,,,,,,,,,,,,,",
        f",Grace,Hopper,{good2},,,,,,,,,,no,",
        f',Carl,"Nobody, Jr.",carl.{run}@console.example,,no-such-kit,,,,,,,,,',
        f',Dwayne "The Rock",Johnson,rock.{run}@console.example,,no-such-kit,,,,,,,,,',
    ]
    file = tmp_path / "people.csv"
    file.write_text(HEADER + "\r\n" + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    page.get_by_role("link", name="CSV upload", exact=True).click()
    expect(console.heading()).to_have_text("CSV upload")
    accessible(console, "upload")
    # Drag and drop: a drop event carrying the file, as a browser sends it.
    content = file.read_text(encoding="utf-8")
    transfer = page.evaluate_handle(
        "text => { const dt = new DataTransfer(); dt.items.add(new File([text], 'people.csv', {type: 'text/csv'})); return dt; }",
        content,
    )
    page.dispatch_event("#drop-zone", "drop", {"dataTransfer": transfer})
    page.get_by_role("button", name="Upload people.csv").click()
    expect(page.locator("#upload-status")).to_have_text("Done.")
    expect(page.locator(".upload-result .notice")).to_have_text("5 rows: 2 created, 3 failed.")
    cells = page.locator(".upload-result tbody tr").evaluate_all("trs => trs.map(tr => [...tr.cells].map(td => td.innerText.trim()))")
    # Row, person, result, column, what happened.
    assert [c[0] for c in cells] == ["3", "6", "7", "2", "5"], cells
    assert cells[0][3] == "cpf_number" and cells[0][2].startswith("400")
    assert cells[0][1] == f"Bea Costa (bea.{run}@console.example)"
    assert cells[1][3] == "package_slug" and cells[1][2].startswith("404")
    assert cells[2][3] == "package_slug" and cells[2][2].startswith("404")
    assert cells[3][2].startswith("201") and cells[4][2].startswith("201")
    accessible(console, "upload report")
    console.shoot("upload")
    # The failed rows come back as the file's own rows, ready to fix and upload again.
    with page.expect_download() as info:
        page.locator("#download-failed").click()
    failed = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8-sig"))))
    original = list(csv.reader(io.StringIO("\r\n".join(rows))))
    assert failed[0] == HEADER.split(",")
    assert failed[1:] == [original[1], original[4], original[5]], failed
    assert failed[3][1] == 'Dwayne "The Rock"'
    assert failed[2][2] == "Nobody, Jr."
    with page.expect_download() as info:
        page.locator("#download-errors").click()
    errors = Path(info.value.path()).read_text(encoding="utf-8-sig").splitlines()
    assert errors[0] == "row,person,status,column,error" and errors[1].startswith("3,") and ",400,cpf_number," in errors[1]
    assert errors[2].startswith("6,") and ",404,package_slug," in errors[2]
    assert errors[3].startswith("7,") and len(errors) == 4
    # The good rows exist in the API.
    for email in (good1, good2):
        _, found = console.server.api("GET", "/scim/v2/Users", query={"filter": f'userName eq "{email}"'})
        assert found["totalResults"] == 1, email
    # A file equip refuses as a whole shows its detail.
    bad = tmp_path / "bad.csv"
    bad.write_text("name,email\nAda,ada@x.example\n", encoding="utf-8")
    page.set_input_files("#csv-file", str(bad))
    page.get_by_role("button", name="Upload bad.csv").click()
    # Every problem of the header at once, the unknown column and the missing ones.
    expect(page.locator(".error")).to_contain_text('column 1, "name", is not a column equip reads')
    expect(page.locator(".error")).to_contain_text('the column "forename" is missing')
    expect(page.locator(".error")).to_contain_text('the column "cpf_number" is missing')


def _users(console, filter_: str):
    _, answer = console.server.api("GET", "/scim/v2/Users", query={"filter": filter_, "count": "50"})
    return answer["Resources"]


def test_a_reminder_shows_the_apis_202_and_409(console):
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    joiners = [u for u in _users(console, f'{EXT}:startDate gt "{today}" and active eq true') if u[EXT].get("status") == "ACTIVE"]
    assert joiners, "the demo data has new joiners"
    past = [u for u in _users(console, f'{EXT}:startDate lt "{today}"') if u[EXT].get("status") == "ACTIVE"]
    assert past, "the demo data has people who started already"
    page = console.sign_in().page
    console.go(f"#/people/{joiners[0]['id']}")
    expect(page.get_by_role("button", name="Send reminder")).to_be_visible()
    accessible(console, "person")
    page.get_by_role("button", name="Send reminder").click()
    expect(page.locator(".reminder-result")).to_contain_text("Reminder queued: the email to")
    expect(page.locator(".reminder-result")).to_contain_text(joiners[0]["userName"])
    _, reminders = console.server.api("GET", f"/api/v1/new-joiners/{joiners[0]['id']}/reminders")
    assert len(reminders["data"]) >= 1
    expect(page.locator("section[aria-labelledby=reminders-title] tbody tr")).to_have_count(len(reminders["data"]))
    console.shoot("person")
    # Someone who started already is no new joiner: no button (the API
    # would answer 409).
    console.go(f"#/people/{past[0]['id']}")
    expect(console.heading()).not_to_have_text("Person")
    expect(page.get_by_role("heading", name="Assigned items")).to_be_visible()
    expect(page.get_by_role("button", name="Send reminder")).to_have_count(0)
    status, refused = console.server.api("POST", f"/api/v1/new-joiners/{past[0]['id']}/remind", body={})
    assert status == 409, refused


def test_a_level_is_deactivated_after_confirmation(console):
    page = console.sign_in().page
    page.get_by_role("link", name="Inventory levels", exact=True).click()
    _, levels = console.server.api("GET", "/api/v1/inventory-levels")
    assert levels["data"], "the demo data has inventory levels"
    expect(page.locator("button[data-level]")).to_have_count(len(levels["data"]))
    accessible(console, "levels")
    console.shoot("levels")
    first = page.locator("button[data-level]").first
    level_id = first.get_attribute("data-level")
    first.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    # The shared confirmation dialog, open, at desktop and at phone width.
    accessible(console, "levels with the confirmation dialog open")
    size = page.viewport_size
    page.set_viewport_size({"width": 375, "height": 760})
    page.wait_for_timeout(150)
    accessible(console, "levels with the confirmation dialog open, at 375 px")
    page.set_viewport_size(size)
    console.shoot("levels-confirm")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    _, still = console.server.api("GET", "/api/v1/inventory-levels")
    assert level_id in [lv["id"] for lv in still["data"]]
    page.locator(f"button[data-level='{level_id}']").click()
    page.get_by_role("dialog").get_by_role("button", name="Deactivate").click()
    expect(page.locator(".level-message")).to_contain_text("Deactivated the level")
    expect(page.locator(f"button[data-level='{level_id}']")).to_have_count(0)
    _, after = console.server.api("GET", "/api/v1/inventory-levels", query={"includeInactive": "true"})
    level = next(lv for lv in after["data"] if lv["id"] == level_id)
    assert level["active"] is False and level["deactivatedAt"]
    expect(page.locator(".level-message")).to_be_focused()
    # A level deactivated elsewhere since the list was drawn: the API's 409,
    # shown with its detail.
    other = page.locator("button[data-level]").first
    other_id = other.get_attribute("data-level")
    status, _ = console.server.api("DELETE", f"/api/v1/inventory-levels/{other_id}")
    assert status == 204
    other.click()
    page.get_by_role("dialog").get_by_role("button", name="Deactivate").click()
    error = page.locator(".level-message .error")
    expect(error).to_contain_text("409")
    expect(error).to_contain_text("already")


def test_warehouses(console):
    page = console.sign_in().page
    page.get_by_role("link", name="Warehouses", exact=True).click()
    _, warehouses = console.server.api("GET", "/api/v1/warehouses")
    expect(page.locator(".count")).to_have_text(f"{len(warehouses['data'])} warehouses")
    for w in warehouses["data"]:
        expect(page.locator("table.data")).to_contain_text(w["name"])
    accessible(console, "warehouses")
    console.shoot("warehouses")


def test_a_key_without_scopes_and_a_read_only_key(console):
    page = console.sign_in(console.server.keys["none"]).page
    expect(console.heading()).to_have_text("This key has no scopes")
    for area in ["Inventory", "People", "CSV upload", "Warehouses", "Inventory levels"]:
        expect(page.get_by_role("link", name=area, exact=True)).to_be_hidden()
    page.locator("#key-summary").click()
    expect(page.locator("#key-scopes")).to_have_text("none")
    page.locator("#key-summary").click()
    accessible(console, "no scopes")
    console.shoot("no-scopes")
    page.get_by_role("button", name="Sign out").click()
    console.sign_in(console.server.keys["reader"])
    expect(console.heading()).to_have_text("Overview")
    expect(page.get_by_role("link", name="Inventory", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Inventory levels", exact=True)).to_be_visible()
    for area in ["People", "CSV upload", "Warehouses"]:
        expect(page.get_by_role("link", name=area, exact=True)).to_be_hidden()
    page.get_by_role("link", name="Inventory levels", exact=True).click()
    expect(page.locator(".count")).to_be_visible()
    expect(page.locator("button[data-level]")).to_have_count(0)
    console.go("#/people")
    expect(console.heading()).to_have_text("Not available with this key")
    console.go("#/inventory")
    page.locator("a.item-link").first.click()
    expect(page.get_by_role("heading", name="History")).to_have_count(0)


def test_sign_out_and_a_revoked_key(console):
    page = console.sign_in().page
    expect(console.heading()).to_have_text("Overview")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(page.locator(".notice")).to_contain_text("Signed out")
    assert page.evaluate("sessionStorage.length") == 0
    assert "#/" not in page.url
    # A key revoked while signed in is dropped at its next request (401).
    key, key_id = _fresh_key(console)
    console.sign_in(key)
    console.go("#/inventory")
    expect(page.locator("#result-count")).to_be_visible()
    # Every request of the screen answered first (names, pickers), so that the
    # 401 comes from the next screen's request.
    page.wait_for_load_state("networkidle")
    console.server.equip("key", "revoke", key_id)
    page.get_by_role("link", name="People", exact=True).click()
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(page.locator(".notice")).to_contain_text("401")
    assert page.evaluate("sessionStorage.length") == 0


def _fresh_key(console):
    from conftest import create_key

    return create_key(console.server.database_url, console.server.org, "Revoked in a test")


def test_keyboard_only(console):
    page = console.sign_in().page
    console.go("#/inventory")
    expect(page.locator("#result-count")).to_be_visible()
    page.locator("#skip-link").focus()
    assert page.evaluate("document.getElementById('skip-link').getBoundingClientRect().top") >= 0
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    # From the first item link, Enter opens the item.
    page.locator("a.item-link").first.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#/inventory/[0-9a-f-]{36}$"))
    # The confirmation dialog is answered from the keyboard: Escape cancels.
    console.go("#/levels")
    page.locator("button[data-level]").first.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "confirm-cancel"
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()


def test_phone_width_has_no_sideways_scrolling(console):
    page = console.sign_in().page
    page.set_viewport_size({"width": 375, "height": 760})
    for fragment in ["#/inventory", "#/people", "#/upload", "#/warehouses", "#/levels"]:
        console.go(fragment)
        page.wait_for_timeout(300)
        page.wait_for_load_state("networkidle")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 375, f"{fragment} is {wide}px wide at 375px"
