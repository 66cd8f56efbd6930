"""The overview, people (starting soon, offboarding, reminders), the CSV
upload's template and report, and the shell (organization name, global
search, dark mode, phone layout), in a real Chromium against a real
`equip serve` with demo data, once per backend.

What the console shows is compared with what the API answers for the same
key; axe-core checks each new screen.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import PHONE
from test_console import accessible

EXT = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"
HEADER16 = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number,start_date"


def utc_day(days: int = 0) -> str:
    return (dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=days)).isoformat()


def soon_filter(days: int) -> str:
    return f'{EXT}:startDate ge "{utc_day(0)}" and {EXT}:startDate le "{utc_day(days)}"'


def scim_all(server, filter_: str) -> list:
    """Every SCIM user matching `filter_` (page by page)."""
    out: list = []
    while True:
        _, page = server.api("GET", "/scim/v2/Users", query={"filter": filter_, "startIndex": str(len(out) + 1), "count": "50"})
        out += page["Resources"]
        if not page["Resources"] or len(out) >= page["totalResults"]:
            return out


def new_person(server, run: str, **ext) -> dict:
    body = {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
        "userName": f"leaver.{run}@console.example",
        "name": {"givenName": "Lea", "familyName": f"Ver{run}"},
        EXT: ext,
    }
    status, user = server.api("POST", "/scim/v2/Users", body=body)
    assert status == 201, user
    return user




def test_the_overview_is_the_first_screen_and_its_numbers_are_the_apis(console):
    server = console.server
    status, summary = server.api("GET", "/api/v1/inventory-summary")
    page = console.sign_in().page
    expect(console.heading()).to_have_text("Overview")
    expect(page).to_have_url(re.compile(r"#/overview$"))
    # Levels below their minimum, each linked to its SKU's available items at its warehouse.
    _, levels = server.api("GET", "/api/v1/inventory-levels")
    below = [lv for lv in levels["data"] if lv["belowMinimum"]]
    expect(page.locator("#below-count")).to_have_text(re.compile(rf"^{len(below)} level"))
    expect(page.locator("#below-list li")).to_have_count(len(below))
    # Returns in flight.
    in_flight = 0
    for s in ["PENDING", "PROCESSING", "RETURN_KIT_SENT", "RETURN_KIT_DELIVERED", "RETURN_KIT_SENT_BACK", "RECEIVED_IN_WAREHOUSE"]:
        _, r = server.api("GET", "/api/v1/return-orders", query={"status": s, "size": "1"})
        in_flight += r["pagination"]["totalRecords"]
    expect(page.locator("#returns-count")).to_have_text(re.compile(rf"^{in_flight} return"))
    # Joiners starting in the next 30 days: the SCIM filter's answer; those
    # without an order or waiting for stock, by the orders API.
    joiners = scim_all(server, soon_filter(30))
    expect(page.locator("#joiners-count")).to_have_text(re.compile(rf"^{len(joiners)} joiner"))
    expect(page.locator("#joiners .loading")).to_have_count(0)
    attention = set()
    for u in joiners:
        _, orders = server.api("GET", "/api/v1/orders", query={"personId": u["id"], "size": "20"})
        live = [o for o in orders["data"] if o["status"] != "CANCELLED"]
        if not live or any(ln["status"] == "BACKORDERED" for o in live for ln in o["lines"]):
            attention.add(u["id"])
    shown = page.locator("#joiners-attention a.person-link").evaluate_all("as => as.map(a => a.getAttribute('href').split('/').pop())")
    assert set(shown) == attention
    if below:
        link = page.locator("#below-list a").first.get_attribute("href")
        assert f"skuIds={below[0]['skuId']}" in link or any(f"skuIds={lv['skuId']}" in link for lv in below)
    assert status == 200, summary
    # Counts by status: each number is the summary's, and links to the list it counts.
    by_status: dict = {}
    for row in summary["counts"]:
        by_status[row["deployStatus"]] = by_status.get(row["deployStatus"], 0) + row["count"]
    total = sum(by_status.values())
    expect(page.locator("#total-items")).to_have_text(f"{total} items")
    legend = page.locator("#by-status .chart-legend a")
    expect(legend).to_have_count(len(by_status))
    counted = {}
    for a in legend.all():
        m = re.search(r"deployStatuses=([A-Z_]+)", a.get_attribute("href"))
        counted[m.group(1)] = int(a.locator(".legend-count").inner_text())
    assert counted == by_status
    # Counts by category.
    by_category: dict = {}
    for row in summary["counts"]:
        by_category[row["categoryCode"]] = by_category.get(row["categoryCode"], 0) + row["count"]
    cats = {}
    for a in page.locator("#by-category .chart-legend a").all():
        m = re.search(r"categories=([^&]+)", a.get_attribute("href"))
        cats[m.group(1)] = int(a.locator(".legend-count").inner_text())
    assert cats == by_category
    holds = summary["holdsEndingWithin7Days"]
    expect(page.locator("#holds-count")).to_have_text(re.compile(rf"^{holds} item"))
    # The charts are pictures of those lists (one bar per status), with a text equivalent.
    expect(page.locator("#by-status svg rect.bar")).to_have_count(len(by_status))
    label = page.locator("#by-status svg[role=img]").get_attribute("aria-label")
    assert label.startswith("Items by status:"), label
    for s, n in by_status.items():
        assert f"{s.replace('_', ' ').capitalize()} {n}" in label, label
    accessible(console, "overview")
    console.shoot("overview")
    # A number opens the filtered list it counts.
    first, count = next(iter(sorted(by_status.items())))
    page.locator(f"#by-status a[href*='deployStatuses={first}']").click()
    expect(page).to_have_url(re.compile(rf"#/inventory\?deployStatuses={first}$"))
    _, listed = server.api("GET", "/api/v1/inventory", query={"deployStatuses": first, "size": "1"})
    assert listed["pagination"]["totalRecords"] == count
    expect(page.locator("#result-count")).to_have_text(f"{count} items")
    page.go_back()
    expect(console.heading()).to_have_text("Overview")
    page.locator("#joiners-count").click()
    expect(page).to_have_url(re.compile(r"#/people\?startingWithin=30"))
    expect(page.locator("#result-count")).to_have_text(f"{len(joiners)} people")


def test_the_overview_shows_only_what_the_key_may_read(console):
    page = console.sign_in(console.server.keys["reader"]).page
    expect(console.heading()).to_have_text("Overview")
    expect(page.locator("#by-status")).to_be_visible()
    expect(page.locator("#below-count")).to_be_visible()
    expect(page.locator("#joiners")).to_have_count(0)
    expect(page.locator("#returns")).to_have_count(0)
    # A key without inventory:read keeps its first area.
    page.get_by_role("button", name="Sign out").click()
    from conftest import create_key

    key, _ = create_key(console.server.database_url, console.server.org, "People only", "--scope", "scim")
    console.sign_in(key)
    expect(console.heading()).to_have_text("People")
    expect(page.get_by_role("link", name="Overview", exact=True)).to_be_hidden()


def test_starting_soon_filter_and_start_date_sort_are_the_scim_answer(console):
    page = console.sign_in().page
    console.go("#/people")
    expect(page.locator("#result-count")).to_be_visible()
    page.get_by_label("Start date").select_option("30")
    expect(page).to_have_url(re.compile(r"startingWithin=30"))
    _, expected = console.server.api("GET", "/scim/v2/Users", query={"filter": soon_filter(30), "count": "25", "sortBy": "name.familyName"})
    assert expected["totalResults"] > 0, "the demo data has joiners starting within 30 days"
    expect(page.locator("#result-count")).to_have_text(f"{expected['totalResults']} people")
    hrefs = page.locator("a.person-link").evaluate_all("as => as.map(a => a.getAttribute('href').split('/').pop())")
    assert hrefs == [u["id"] for u in expected["Resources"]]
    # Sorted by start date, soonest first: SCIM's own sort on the extension's startDate.
    page.get_by_label("Sort by").select_option("startDate")
    expect(page).to_have_url(re.compile(r"sort=startDate"))
    _, by_start = console.server.api(
        "GET", "/scim/v2/Users", query={"filter": soon_filter(30), "count": "25", "sortBy": f"{EXT}:startDate"}
    )
    expect(page.locator("#result-count")).to_have_text(f"{by_start['totalResults']} people")
    ids = [u["id"] for u in by_start["Resources"]]
    page.wait_for_function(
        "ids => [...document.querySelectorAll('a.person-link')].map(a => a.getAttribute('href').split('/').pop()).join() === ids.join()", arg=ids
    )
    dates = [u[EXT]["startDate"] for u in by_start["Resources"]]
    assert dates == sorted(dates)
    assert page.locator("table.data tbody tr td:nth-child(4)").all_inner_texts() == dates
    everyone = scim_all(console.server, soon_filter(30))
    assert min(u[EXT]["startDate"] for u in everyone) == dates[0]
    accessible(console, "people starting soon")
    console.shoot("people-starting-soon")
    # Search and the filter together.
    family = everyone[0]["name"]["familyName"]
    page.get_by_role("searchbox", name="Search").press_sequentially(family, delay=30)
    expect(page).to_have_url(re.compile(r"q="))
    expect(page.locator("a.person-link", has_text=family).first).to_be_visible()
    assert "startingWithin=30" in page.url


def test_people_column_headers_sort_as_scim_does_and_the_url_keeps_it(console):
    """Name, Email and Start date headers sort both ways, as SCIM's sortBy and
    sortOrder do; the URL carries the sort and the "Sort by" choice follows."""
    server = console.server
    page = console.sign_in().page
    console.go("#/people")
    expect(page.locator("#result-count")).to_be_visible()
    hrefs = "[...document.querySelectorAll('a.person-link')].map(a => a.getAttribute('href').split('/').pop()).join()"

    def shows(sort_by: str, order: str, column: str):
        _, answer = server.api("GET", "/scim/v2/Users", query={"count": "25", "sortBy": sort_by, "sortOrder": order})
        assert len(answer["Resources"]) == 25
        page.wait_for_function(f"ids => {hrefs} === ids.join()", arg=[u["id"] for u in answer["Resources"]])
        expect(page.locator(f"th[aria-sort={order}]")).to_have_text(re.compile(f"^{column}"))
        expect(page.locator("th[aria-sort]")).to_have_count(1)
        return answer["Resources"]

    # By default: family name, A to Z, and the Name header says so.
    shows("name.familyName", "ascending", "Name")
    expect(page.get_by_label("Sort by")).to_have_value("")
    # Start date: first click ascending (soonest first), second descending.
    page.locator("button.sort-header[data-sort=startDate]").click()
    expect(page).to_have_url(re.compile(r"sort=startDate"))
    assert "order=" not in page.url
    users = shows(f"{EXT}:startDate", "ascending", "Start date")
    dates = [u[EXT]["startDate"] for u in users if u.get(EXT, {}).get("startDate")]
    assert dates == sorted(dates)
    expect(page.get_by_label("Sort by")).to_have_value("startDate")
    page.locator("button.sort-header[data-sort=startDate]").click()
    expect(page).to_have_url(re.compile(r"sort=startDate.*order=descending"))
    shows(f"{EXT}:startDate", "descending", "Start date")
    expect(page.get_by_label("Sort by")).to_have_value("startDate:descending")
    accessible(console, "people sorted by a header")
    # The keyboard: Enter on the Name header's button, then on it again.
    page.locator("button.sort-header[data-sort=name]").focus()
    page.keyboard.press("Enter")
    expect(page).not_to_have_url(re.compile(r"sort=|order="))
    shows("name.familyName", "ascending", "Name")
    page.locator("button.sort-header[data-sort=name]").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"order=descending"))
    assert "sort=" not in page.url
    shows("name.familyName", "descending", "Name")
    # The URL alone gives the same list; the choice sorts the headers too.
    console.go("#/overview")
    expect(page.locator("#view-title")).not_to_have_text("People")
    console.go("#/people?order=descending")
    shows("name.familyName", "descending", "Name")
    expect(page.get_by_label("Sort by")).to_have_value("name:descending")
    page.get_by_label("Sort by").select_option("userName:descending")
    expect(page).to_have_url(re.compile(r"sort=userName.*order=descending"))
    shows("userName", "descending", "Email")
    page.locator("button.sort-header[data-sort=userName]").click()
    expect(page).to_have_url(re.compile(r"sort=userName"))
    assert "order=" not in page.url
    shows("userName", "ascending", "Email")
    expect(page.get_by_label("Sort by")).to_have_value("userName")


def test_everyone_by_start_date_pages_as_scim_sorts(console):
    """Without the 'starting soon' filter: every person by start date, those
    without one last, page by page as the API pages them."""
    server = console.server
    run = os.urandom(4).hex()
    new_person(server, run + "x")  # no start date
    _, first = server.api("GET", "/scim/v2/Users", query={"count": "25", "sortBy": f"{EXT}:startDate"})
    total = first["totalResults"]
    assert total > 25, "the demo data has more than a page of people"
    page = console.sign_in().page
    console.go("#/people?sort=startDate")
    expect(page.locator("#result-count")).to_have_text(f"{total} people")
    hrefs = "[...document.querySelectorAll('a.person-link')].map(a => a.getAttribute('href').split('/').pop()).join()"
    page.wait_for_function(f"ids => {hrefs} === ids.join()", arg=[u["id"] for u in first["Resources"]])
    # The last page ends with the people who have no start date.
    last = (total - 1) // 25 + 1
    _, tail = server.api("GET", "/scim/v2/Users", query={"count": "25", "startIndex": str((last - 1) * 25 + 1), "sortBy": f"{EXT}:startDate"})
    console.go(f"#/people?sort=startDate&page={last}")
    page.wait_for_function(f"ids => {hrefs} === ids.join()", arg=[u["id"] for u in tail["Resources"]])
    assert tail["Resources"][-1].get(EXT, {}).get("startDate") is None
    dated = [u[EXT]["startDate"] for u in first["Resources"] if u.get(EXT, {}).get("startDate")]
    assert dated == sorted(dated)


def test_people_export_every_page_of_the_filtered_list(console):
    """The export holds exactly the people the list's filter selects, in the
    list's order, over more than one of the API's pages."""
    server = console.server
    _, some = server.api("GET", "/scim/v2/Users", query={"count": "0"})
    run = os.urandom(3).hex()
    for i in range(max(0, 56 - some["totalResults"])):  # more than the export's page of 50
        new_person(server, f"{run}{i}", startDate=f"2031-01-{i % 28 + 1:02d}")
    page = console.sign_in().page
    console.go("#/people?sort=startDate")
    expect(page.locator("#result-count")).to_be_visible()
    with page.expect_download() as info:
        page.get_by_role("button", name="Export CSV").click()
    assert info.value.suggested_filename == "people.csv"
    rows = list(csv.DictReader(io.StringIO(open(info.value.path(), encoding="utf-8-sig").read())))
    expected = []
    start = 1
    while True:
        _, answer = server.api("GET", "/scim/v2/Users", query={"count": "50", "startIndex": str(start), "sortBy": f"{EXT}:startDate"})
        expected += answer["Resources"]
        start += len(answer["Resources"])
        if not answer["Resources"] or start > answer["totalResults"]:
            break
    assert len(expected) > 50, "more than one page of the API"
    assert [r["id"] for r in rows] == [u["id"] for u in expected]
    assert [r["email"] for r in rows] == [u["userName"] for u in expected]
    # Statuses in words, not the API's codes.
    words = {"ACTIVE": "Active", "OFFBOARDING": "Leaving", "OFFBOARDED": "Left", None: ""}
    assert [r["status"] for r in rows] == [words[u.get(EXT, {}).get("status")] for u in expected]
    assert open(info.value.path(), "rb").read(3) == b"\xef\xbb\xbf", "a UTF-8 byte order mark first"
    expect(page.locator(".export-status")).to_have_text(f"Exported {len(rows)} people.")


def test_offboarding_end_to_end(console):
    server = console.server
    run = os.urandom(4).hex()
    user = new_person(server, run)
    # Give them an available item.
    _, available = server.api("GET", "/api/v1/inventory", query={"deployStatuses": "AVAILABLE", "size": "1"})
    item = available["data"][0]
    status, changed = server.api(
        "PATCH", f"/api/v1/inventory/{item['id']}", body={"deployStatus": "DEPLOYED", "assignedTo": {"type": "PERSON", "id": user["id"]}}
    )
    assert status == 200, changed
    page = console.sign_in().page
    console.go(f"#/people/{user['id']}")
    expect(console.heading()).to_have_text(f"Lea Ver{run}")
    page.get_by_role("button", name="Offboard…").click()
    dialog = page.locator("#offboard-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("a return order will be created for 1 item".capitalize())
    expect(dialog.locator(".offboard-items li")).to_have_count(1)
    expect(dialog.locator(".offboard-items")).to_contain_text(item["serialNumber"] or item["skuTitle"])
    assert page.evaluate("document.activeElement.id") == "offboard-cancel"
    accessible(console, "offboard confirmation")
    console.shoot("offboard-confirm")
    # Escape keeps them.
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    status, still = server.api("GET", f"/scim/v2/Users/{user['id']}")
    assert status == 200 and still[EXT]["status"] == "ACTIVE"
    page.get_by_role("button", name="Offboard…").click()
    page.locator("#offboard-confirm").click()
    result = page.locator(".offboard-result")
    expect(result).to_contain_text("a return order was created for 1 item")
    expect(result).to_be_focused()
    expect(page.locator(".person-status")).to_have_text("Leaving")
    # The API agrees: the person is offboarding (gone from SCIM), with a return order for the item.
    status, _ = server.api("GET", f"/scim/v2/Users/{user['id']}")
    assert status == 404
    _, returns = server.api("GET", "/api/v1/return-orders", query={"personId": user["id"]})
    assert len(returns["data"]) == 1
    order = returns["data"][0]
    assert [ln["itemId"] for ln in order["lines"]] == [item["id"]]
    expect(result.locator("a.return-link")).to_have_attribute("href", f"#/returns/{order['id']}")
    _, history = server.api("GET", f"/api/v1/people/{user['id']}/history")
    assert "person.offboarding_started" in [e["type"] for e in history["data"]]
    accessible(console, "offboarded")


def test_offboarding_someone_without_equipment(console):
    server = console.server
    run = os.urandom(4).hex()
    user = new_person(server, run)
    page = console.sign_in().page
    console.go(f"#/people/{user['id']}")
    page.get_by_role("button", name="Offboard…").click()
    expect(page.locator("#offboard-dialog")).to_contain_text("They hold no equipment")
    page.locator("#offboard-confirm").click()
    expect(page.locator(".offboard-result")).to_contain_text("held no equipment and is offboarded")
    _, returns = server.api("GET", "/api/v1/return-orders", query={"personId": user["id"]})
    assert returns["data"] == []


def test_the_reminder_is_for_new_joiners_and_its_status_follows(console):
    server = console.server
    run = os.urandom(4).hex()
    joiner = new_person(server, run, startDate=utc_day(20))
    started = new_person(server, run + "p", startDate=utc_day(-20))
    page = console.sign_in().page
    console.go(f"#/people/{started['id']}")
    expect(console.heading()).to_have_text(f"Lea Ver{run}p")
    expect(page.get_by_role("heading", name="Assigned items")).to_be_visible()
    expect(page.get_by_role("button", name="Send reminder")).to_have_count(0)
    console.go(f"#/people/{joiner['id']}")
    expect(console.heading()).to_have_text(f"Lea Ver{run}")
    page.get_by_role("button", name="Send reminder").click()
    expect(page.locator(".reminder-result")).to_contain_text("Reminder queued: the email to")
    # equip sends it in the background (to its spool here); the status on
    # screen follows without a reload.
    deadline = dt.datetime.now() + dt.timedelta(seconds=40)
    sent = None
    while dt.datetime.now() < deadline:
        _, reminders = server.api("GET", f"/api/v1/new-joiners/{joiner['id']}/reminders")
        if reminders["data"] and reminders["data"][0]["status"] != "PENDING":
            sent = reminders["data"][0]
            break
        page.wait_for_timeout(500)
    assert sent, "equip sent the reminder"
    expect(page.locator(f".reminder-status[data-reminder='{sent['id']}']")).to_have_text(sent["status"].capitalize(), timeout=10_000)
    # A key without new-joiners:write sees no button.
    from conftest import create_key

    key, _ = create_key(server.database_url, server.org, "People reader", "--scope", "scim")
    page.get_by_role("button", name="Sign out").click()
    console.sign_in(key)
    console.go(f"#/people/{joiner['id']}")
    expect(console.heading()).to_have_text(f"Lea Ver{run}")
    expect(page.get_by_role("button", name="Send reminder")).to_have_count(0)
    expect(page.get_by_role("button", name="Offboard…")).to_be_visible()


def test_the_upload_template_slugs_column_errors_and_already_exists(console, tmp_path):
    server = console.server
    page = console.sign_in().page
    console.go("#/upload")
    expect(console.heading()).to_have_text("CSV upload")
    # The package slugs are the API's.
    _, packages = server.api("GET", "/api/v1/packages")
    expect(page.locator("#slug-list li")).to_have_count(len(packages["data"]))
    slugs = page.locator("#slug-list code").all_inner_texts()
    assert sorted(slugs) == sorted(p["slug"] for p in packages["data"])
    accessible(console, "upload")
    # The template: the header equip takes, and one example row.
    with page.expect_download() as info:
        page.locator("#download-template").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8-sig"))))
    assert rows[0] == HEADER16.split(",") and len(rows) == 2
    run = os.urandom(4).hex()
    slug = packages["data"][0]["slug"] if packages["data"] else ""
    # The template's own example, made unique, is a row equip takes, start_date included.
    example = rows[1][:]
    example[3] = f"ada.{run}@console.example"
    example[5] = slug
    existing = f"grace.{run}@console.example"
    status, _ = server.api(
        "POST", "/scim/v2/Users", body={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": existing, "name": {"givenName": "Grace", "familyName": "Hopper"}}
    )
    assert status == 201
    lines = [
        example,
        ["", "Grace", "Hopper", existing, "", "", "", "", "", "", "", "", "", "", "", ""],
        ["", "Bad", "Date", f"bad.{run}@console.example", "", "", "", "", "", "", "", "", "", "", "", "tomorrow"],
        ["", "No", "Email", "not-an-email", "", "", "", "", "", "", "", "", "", "", "", ""],
    ]
    file = tmp_path / "people.csv"
    with file.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([rows[0], *lines])
    page.set_input_files("#csv-file", str(file))
    page.get_by_role("button", name="Upload people.csv").click()
    expect(page.locator("#upload-status")).to_have_text("Done.")
    expect(page.locator(".upload-result .notice")).to_have_text("4 rows: 1 created, 1 already exists, 2 failed.")
    cells = page.locator(".upload-result tbody tr").evaluate_all("trs => trs.map(tr => [...tr.cells].map(td => td.innerText.trim()))")
    # Row, person, result, column, what happened; failures first, then "already exists".
    # Rows as a spreadsheet numbers them: the header is row 1.
    assert [c[0] for c in cells] == ["4", "5", "3", "2"], cells
    assert cells[0][1] == f"Bad Date (bad.{run}@console.example)" and cells[0][3] == "start_date", cells[0]
    assert cells[1][1] == "No Email (not-an-email)" and cells[1][3] == "email", cells[1]
    assert "userName" not in cells[1][4], cells[1]
    assert cells[2][2] == "Already exists" and cells[2][1] == f"Grace Hopper ({existing})", cells[2]
    assert cells[3][2].startswith("201"), cells[3]
    expect(page.locator(".upload-result .badge-failed")).to_have_count(2)
    accessible(console, "upload report")
    page.locator("#report-title").scroll_into_view_if_needed()
    console.shoot("upload-report")
    # The start date went in.
    _, found = server.api("GET", "/scim/v2/Users", query={"filter": f'userName eq "{example[3]}"'})
    assert found["Resources"][0][EXT]["startDate"] == example[15]
    if slug:
        assert found["Resources"][0][EXT]["packageId"] == packages["data"][0]["id"]
    # The failed rows only (not the one that exists) come back to fix.
    with page.expect_download() as info:
        page.locator("#download-failed").click()
    failed = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8-sig"))))
    assert failed[1:] == [lines[2], lines[3]]


def test_global_search_finds_people_and_items(console):
    server = console.server
    page = console.sign_in().page
    _, some = server.api("GET", "/scim/v2/Users", query={"count": "1", "sortBy": "name.familyName"})
    family = some["Resources"][0]["name"]["familyName"]
    box = page.get_by_role("searchbox", name="Find people or items")
    box.fill(family)
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"#/search\?q="))
    expect(console.heading()).to_have_text(f"Search: {family}")
    f = f'userName co "{family}" or name.givenName co "{family}" or name.familyName co "{family}"'
    _, people = server.api("GET", "/scim/v2/Users", query={"filter": f, "count": "10", "sortBy": "name.familyName"})
    found = page.locator("#people-found a.person-link")
    expect(found).to_have_count(len(people["Resources"]))
    assert found.evaluate_all("as => as.map(a => a.getAttribute('href').split('/').pop())") == [u["id"] for u in people["Resources"]]
    accessible(console, "search")
    console.shoot("search")
    # Items by serial number.
    _, items = server.api("GET", "/api/v1/inventory", query={"size": "1", "sortBy": "serialNumber", "sortDirection": "DESC"})
    serial = items["data"][0]["serialNumber"]
    box.fill(serial)
    box.press("Enter")
    expect(console.heading()).to_have_text(f"Search: {serial}")
    _, expected = server.api("GET", "/api/v1/inventory", query={"searchString": serial, "size": "10"})
    links = page.locator("#items-found a.item-link")
    expect(links).to_have_count(len(expected["data"]))
    assert links.evaluate_all("as => as.map(a => a.getAttribute('href').split('/').pop())") == [i["id"] for i in expected["data"]]
    links.first.click()
    expect(page).to_have_url(re.compile(rf"#/inventory/{expected['data'][0]['id']}$"))
    # A key that reads only the inventory searches items only.
    page.get_by_role("button", name="Sign out").click()
    console.sign_in(server.keys["reader"])
    console.go(f"#/search?q={serial}")
    expect(page.locator("#items-found a.item-link")).to_have_count(len(expected["data"]))
    expect(page.get_by_role("heading", name="People")).to_have_count(0)
    expect(page.get_by_role("searchbox", name="Find people or items")).to_have_attribute("placeholder", "Serials, products")


def test_the_header_names_the_organization(console):
    status, key = console.server.api("GET", "/api/v1/api-key")
    assert status == 200 and key["organizationName"], key
    page = console.sign_in().page
    expect(page.locator("#org-name")).to_have_text(key["organizationName"])
    expect(page.locator("#org-name")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#org-name")).to_be_hidden()


def test_dark_mode_follows_the_system_and_stays_accessible(dark):
    page = dark.sign_in().page
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    # The page's background is dark (each channel below 64).
    channels = [int(x) for x in re.findall(r"\d+", background)[:3]]
    assert max(channels) < 64, background
    screens = ["#/overview", "#/people", "#/upload", "#/search?q=a"]
    for fragment in screens:
        dark.go(fragment)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
        expect(page.locator("main .loading")).to_have_count(0)
        accessible(dark, f"dark {fragment}")
    _, some = dark.server.api("GET", "/scim/v2/Users", query={"count": "1"})
    dark.go(f"#/people/{some['Resources'][0]['id']}")
    expect(page.get_by_role("heading", name="Assigned items")).to_be_visible()
    page.wait_for_load_state("networkidle")
    accessible(dark, "dark person")
    dark.shoot("dark-person")


def test_a_filtered_list_on_a_phone_shows_results_first(console):
    page = console.sign_in().page
    page.set_viewport_size(PHONE)
    console.go("#/people?startingWithin=30&sort=startDate")
    expect(page.locator("#result-count")).to_be_visible()
    # The filters are folded; the results start on the first screen.
    expect(page.locator("details.filters-fold")).not_to_have_attribute("open", "")
    top = page.evaluate("document.querySelector('#result-count').getBoundingClientRect().top")
    assert top < PHONE["height"] / 2, top
    first = page.evaluate("document.querySelector('a.person-link').getBoundingClientRect().top")
    assert first < PHONE["height"], first
    for fragment in ["#/people?startingWithin=30", "#/upload", "#/search?q=a", "#/overview"]:
        console.go(fragment)
        page.wait_for_load_state("networkidle")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"{fragment} is {wide}px wide"
    console.go("#/people?startingWithin=30&sort=startDate")
    expect(page.locator("a.person-link").first).to_be_visible()
    page.locator("details.filters-fold summary").click()
    expect(page.get_by_label("Start date")).to_have_value("30")
    if os.environ.get("EQUIP_CONSOLE_SCREENSHOTS") and console.server.backend == "sqlite":
        page.locator("details.filters-fold summary").click()
        out = Path(os.environ["EQUIP_CONSOLE_SCREENSHOTS"])
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / "people-filtered-phone.png"))


def test_a_key_without_scopes_is_told_the_scopes_equip_has(console):
    """The list comes from equip's OpenAPI document (the ApiKey schema's
    scopes), not from a copy in the console."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{console.server.base}/openapi.json") as res:
        spec = json.load(res)
    scopes = spec["components"]["schemas"]["ApiKey"]["properties"]["scopes"]["items"]["enum"]
    page = console.sign_in(console.server.keys["none"]).page
    expect(console.heading()).to_have_text("This key has no scopes")
    expect(page.locator("#scope-list li")).to_have_count(len(scopes))
    assert page.locator("#scope-list code").all_inner_texts() == scopes
