"""Returns, the warehouse receipt desk, joiners' orders and packages in a real
Chromium against a real `equip serve` with demo data (docs/console.md).

Each action is done in the console and checked against what the API answers
afterwards; each screen is checked with axe-core. The receipt desk is used with
the keyboard only.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import expect

from conftest import create_key
from test_console import accessible

EXT = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"


def person_name(server, person_id: str) -> str:
    """The person's name: SCIM's, or for someone no longer in the directory
    (offboarded) their history's."""
    status, user = server.api("GET", f"/scim/v2/Users/{person_id}")
    if status == 404:
        _, history = server.api("GET", f"/api/v1/people/{person_id}/history", query={"size": "100"})
        names = {}
        for event in history["data"]:
            for field in ("name.givenName", "name.familyName"):
                change = (event.get("changes") or {}).get(field)
                if field not in names and change and change["to"]:
                    names[field] = change["to"]
        return f"{names.get('name.givenName', '')} {names.get('name.familyName', '')}".strip()
    assert status == 200
    n = user.get("name") or {}
    return f"{n.get('givenName', '')} {n.get('familyName', '')}".strip() or user["userName"]


@pytest.fixture(scope="module")
def readonly_key(server):
    """A key that reads returns, orders, packages and people but changes nothing."""
    key, _ = create_key(
        server.database_url, server.org, "Lifecycle reader", "--scope", "inventory:read,warehouses:read,scim,returns:read,orders:read,events:read"
    )
    server.keys["lifecycle-reader"] = key
    return key


def new_return(server, count: int = 2, key: str | None = None) -> dict:
    """A return order created through the API (with `key`, else the demo's
    key) for an ACTIVE person's DEPLOYED items that are on no return and have
    serial numbers."""
    status, page = server.api("GET", "/api/v1/inventory", query={"deployStatuses": "DEPLOYED", "size": "1000"})
    assert status == 200
    by_person: dict[str, list[dict]] = {}
    for item in page["data"]:
        holder = item["assignedTo"]
        if holder and holder["type"] == "PERSON" and item["returnOrder"] is None and item["serialNumber"]:
            by_person.setdefault(holder["id"], []).append(item)
    for person_id, items in sorted(by_person.items(), key=lambda kv: -len(kv[1])):
        if len(items) < count:
            continue
        status, user = server.api("GET", f"/scim/v2/Users/{person_id}")
        if status != 200 or user.get(EXT, {}).get("status") != "ACTIVE":
            continue
        status, order = server.api("POST", "/api/v1/return-orders", key=key, body={"personId": person_id, "itemIds": [i["id"] for i in items[:count]]})
        assert status == 201, order
        order["_items"] = {i["id"]: i for i in items[:count]}
        return order
    pytest.skip("the demo data has no active person with enough deployed items")


def test_returns_are_listed_by_status_with_peoples_names(console):
    page = console.sign_in().page
    console.go("#/returns")
    expect(console.heading()).to_have_text("Returns")
    status, answer = console.server.api("GET", "/api/v1/return-orders", query={"size": "25"})
    assert status == 200
    expect(page.locator("#result-count")).to_have_text(f"{answer['pagination']['totalRecords']} return orders")
    accessible(console, "returns")
    console.shoot("returns")
    # The rows are the API's, in its order, with names instead of ids.
    hrefs = page.locator("a.return-link").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert [h.rsplit("/", 1)[-1] for h in hrefs] == [r["id"] for r in answer["data"]]
    named = next(r for r in answer["data"] if r["personId"])
    row = page.locator("tr", has=page.locator(f"a[href='#/returns/{named['id']}']"))
    expect(row.locator("td[data-label=Person]")).to_contain_text(person_name(console.server, named["personId"]))
    assert named["personId"] not in row.inner_text()
    # The status filter offers exactly the API's statuses, goes to the URL, and
    # lists what the API lists for it.
    options = page.locator("#returns-status option").evaluate_all("os => os.map(o => o.value).filter(Boolean)")
    _, doc = console.server.api("GET", "/openapi.json")
    param = next(p for p in doc["paths"]["/api/v1/return-orders"]["get"]["parameters"] if p["name"] == "status")
    assert options == param["schema"]["enum"]
    page.get_by_label("Status").select_option("RECEIVED_IN_WAREHOUSE")
    # A choice applies on Show (or Enter), not while the arrow keys move it.
    page.get_by_role("button", name="Show", exact=True).click()
    expect(page).to_have_url(re.compile(r"#/returns\?status=RECEIVED_IN_WAREHOUSE"))
    _, received = console.server.api("GET", "/api/v1/return-orders", query={"status": "RECEIVED_IN_WAREHOUSE", "size": "25"})
    expect(page.locator("#result-count")).to_have_text(f"{received['pagination']['totalRecords']} return orders")
    expect(page.locator("a.return-link")).to_have_count(len(received["data"]))
    expect(page.locator("[data-status]").first).to_have_text("Received in a warehouse")
    # The filtered list as CSV: every page, names not ids.
    with page.expect_download() as info:
        page.get_by_role("button", name="Export CSV").click()
    download = info.value
    assert download.suggested_filename == "returns-received_in_warehouse.csv"
    rows = list(csv.DictReader(io.StringIO(open(download.path(), encoding="utf-8-sig").read())))
    _, everything = console.server.api("GET", "/api/v1/return-orders", query={"status": "RECEIVED_IN_WAREHOUSE", "size": "1000"})
    assert [r["return_id"] for r in rows] == [r["id"] for r in everything["data"]]
    assert {r["status"] for r in rows} == {"Received in a warehouse"}
    expect(page.locator(".export-status")).to_have_text(f"Exported {len(rows)} return orders.")
    # One person's returns (a link a person's page can give).
    console.go(f"#/returns?personId={named['personId']}")
    _, theirs = console.server.api("GET", "/api/v1/return-orders", query={"personId": named["personId"], "size": "25"})
    expect(page.locator("#person-filter")).to_contain_text(f"Only {person_name(console.server, named['personId'])}'s returns.")
    expect(page.locator("#result-count")).to_have_text(f"{theirs['pagination']['totalRecords']} return orders")


def test_a_return_gets_a_method_tracking_and_a_write_off(console):
    server = console.server
    order = new_return(server)
    who = person_name(server, order["personId"])
    page = console.sign_in().page
    console.go(f"#/returns/{order['id']}")
    expect(console.heading()).to_contain_text(f"Return of {who}")
    first, second = order["lines"]
    first_item = order["_items"][first["itemId"]]
    expect(page.locator("a.item-link", has_text=first_item["serialNumber"])).to_be_visible()
    expect(page.locator(".timeline")).to_contain_text(f"Return opened for {who}, 2 items to come back.")
    expect(page.locator(".timeline")).to_contain_text("by the key demo")
    accessible(console, "a return")
    console.shoot("return")

    # Choose a return kit with the kit's tracking code.
    page.get_by_label("Method").select_option("RETURN_KIT")
    page.get_by_label("Tracking code of the kit going to the person").fill("1Z-CONSOLE-1")
    page.get_by_role("button", name="Choose this method").click()
    expect(page.locator("#return-outcome")).to_contain_text("Retrieval saved: Return kit: Requested")
    expect(page.locator("#return-outcome")).to_be_focused()
    _, now = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert now["retrievalMethod"]["type"] == "RETURN_KIT"
    assert now["retrievalMethod"]["status"] == "REQUESTED"
    assert now["retrievalMethod"]["inboundTrackingCode"] == "1Z-CONSOLE-1"
    assert now["status"] == "PROCESSING"

    # The kit ships.
    page.get_by_label("Where it is").select_option("SHIPPED")
    page.get_by_role("button", name="Save the retrieval").click()
    expect(page.locator("#return-outcome")).to_contain_text("Kit shipped to the person")
    _, now = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert now["status"] == "RETURN_KIT_SENT" and now["retrievalMethod"]["status"] == "SHIPPED"
    expect(page.locator(".view-head [data-status]")).to_have_text("Return kit sent to the person")

    # Going back is refused by the API, which says why.
    page.get_by_label("Where it is").select_option("LABEL_CREATED")
    page.get_by_role("button", name="Save the retrieval").click()
    expect(page.locator(".error")).to_contain_text("409")
    expect(page.locator(".error")).to_contain_text("cannot move from SHIPPED to LABEL_CREATED")
    _, still = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert still["retrievalMethod"]["status"] == "SHIPPED"

    # Ask for disposal (ITAD) of the second item.
    second_item = order["_items"][second["itemId"]]
    page.get_by_label(re.compile(f"ask for disposal of .*{second_item['serialNumber']}")).check()
    expect(page.locator("#return-outcome")).to_contain_text(f"Disposal (ITAD) asked for {second_item['skuTitle']}")
    _, now = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert next(l for l in now["lines"] if l["id"] == second["id"])["itadRequested"] is True

    # Write the first line off: a dialog says what happens; Cancel keeps it.
    row = page.locator("tr", has=page.locator("a.item-link", has_text=first_item["serialNumber"]))
    row.get_by_label(re.compile("is not coming back")).select_option("STOLEN")
    row.get_by_role("button", name="Write off").click()
    expect(page.locator("#confirm")).to_be_visible()
    expect(page.locator("#confirm-text")).to_contain_text("stolen")
    page.locator("#confirm-cancel").click()
    _, still = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert still["lines"][0]["closedReason"] is None
    row.get_by_role("button", name="Write off").click()
    page.locator("#confirm-ok").click()
    expect(page.locator("#return-outcome")).to_contain_text("was written off: Stolen")
    _, now = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    line = next(l for l in now["lines"] if l["id"] == first["id"])
    assert line["status"] == "NOT_RETURNED" and line["closedReason"] == "STOLEN"
    _, item = server.api("GET", f"/api/v1/inventory/{first['itemId']}")
    assert item["deployStatus"] == "ARCHIVED" and item["deployReason"] == "STOLEN"
    expect(page.locator(".timeline")).to_contain_text("written off (stolen)")
    expect(page.locator(".timeline")).to_contain_text("Retrieval method chosen: return kit")
    expect(page.locator(".timeline")).to_contain_text("inbound tracking code set to 1Z-CONSOLE-1")
    # The person links to their page.
    expect(page.locator("a.person-link").first).to_have_attribute("href", f"#/people/{order['personId']}")


def test_a_return_asked_by_mistake_is_cancelled(console):
    server = console.server
    order = new_return(server, count=1)
    item_id = order["lines"][0]["itemId"]
    page = console.sign_in().page
    console.go(f"#/returns/{order['id']}")
    expect(console.heading()).to_contain_text("Return of")
    page.get_by_role("button", name="Cancel the return").click()
    expect(page.locator("#confirm-text")).to_contain_text("Nothing comes back")
    page.locator("#confirm-ok").click()
    expect(page.locator("#return-outcome")).to_contain_text("Return cancelled")
    _, now = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert now["status"] == "CANCELLED"
    _, item = server.api("GET", f"/api/v1/inventory/{item_id}")
    assert item["deployStatus"] == "DEPLOYED" and item["returnOrder"] is None
    # A cancelled return offers nothing more.
    expect(page.get_by_role("button", name="Cancel the return")).to_have_count(0)
    expect(page.locator("#retrieval-type")).to_have_count(0)
    # A leaver's return cannot be cancelled: the API's 409, in its words.
    _, pending = server.api("GET", "/api/v1/return-orders", query={"status": "PENDING", "size": "100"})
    leavers = [r for r in pending["data"] if r["personId"] and server.api("GET", f"/scim/v2/Users/{r['personId']}")[0] == 404]
    if leavers:
        console.go(f"#/returns/{leavers[0]['id']}")
        page.get_by_role("button", name="Cancel the return").click()
        page.locator("#confirm-ok").click()
        expect(page.locator("#return-outcome .error")).to_contain_text("409")
        _, same = server.api("GET", f"/api/v1/return-orders/{leavers[0]['id']}")
        assert same["status"] == "PENDING"


def test_the_receipt_desk_works_with_a_scanner_and_the_keyboard_only(console):
    server = console.server
    order = new_return(server, count=1)
    item = next(iter(order["_items"].values()))
    _, stores = server.api("GET", "/api/v1/warehouses")
    store = stores["data"][0]
    page = console.sign_in().page
    console.go("#/receipt")
    expect(console.heading()).to_have_text("Warehouse receipt")
    expect(console.heading()).to_be_focused()
    accessible(console, "receipt")
    # Keyboard only: Tab to the warehouse, choose it with the arrow keys, Tab
    # on to the serial number box.
    page.keyboard.press("Tab")
    expect(page.locator("#receipt-warehouse")).to_be_focused()
    _, settings = server.api("GET", "/api/v1/organization/settings")
    expect(page.locator("#hold-period")).to_contain_text(f"for {settings['holdPeriodDays']} days")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#receipt-warehouse")).to_have_value(store["id"])
    expect(page).to_have_url(re.compile(f"#/receipt\\?warehouseId={store['id']}"))
    page.keyboard.press("Tab")
    expect(page.locator("#receipt-condition")).to_be_focused()
    page.keyboard.press("Tab")
    serial = page.locator("#receipt-serial")
    expect(serial).to_be_focused()
    # A scanner types the serial and Enter; the result shows at once, the box
    # is empty and keeps the focus for the next scan.
    page.keyboard.type(item["serialNumber"])
    page.keyboard.press("Enter")
    first = page.locator(".receipt-entry").first
    expect(first).to_have_class(re.compile("received"))
    expect(first).to_contain_text(f"Received at {store['name']}, on hold until")
    expect(serial).to_have_value("")
    expect(serial).to_be_focused()
    expect(page.locator("#announcer")).to_contain_text(f"{item['serialNumber']}: received")
    _, received = server.api("GET", f"/api/v1/inventory/{item['id']}")
    assert received["deployStatus"] == "UNAVAILABLE" and received["deployReason"] == "PENDING_HOLD_RELEASE"
    assert received["assignedTo"]["type"] == "WAREHOUSE" and received["assignedTo"]["id"] == store["id"]
    assert received["unlockDate"] and received["unlockDate"] in first.inner_text()
    _, now = server.api("GET", f"/api/v1/return-orders/{order['id']}")
    assert now["lines"][0]["status"] == "RECEIVED_IN_WAREHOUSE" and now["lines"][0]["warehouseId"] == store["id"]
    # An unknown serial and a second scan of the same item: each its own
    # answer, in words, newest first.
    page.keyboard.type("NO-SUCH-SERIAL-42")
    page.keyboard.press("Enter")
    page.keyboard.type(item["serialNumber"])
    page.keyboard.press("Enter")
    entries = page.locator(".receipt-entry")
    expect(entries).to_have_count(3)
    expect(entries.nth(0)).to_have_attribute("data-status", "409")
    expect(entries.nth(0)).to_contain_text("cannot be received now: it is unavailable (pending hold release)")
    expect(entries.nth(1)).to_have_attribute("data-status", "404")
    expect(entries.nth(1)).to_contain_text("No item of the organization has this serial number")
    expect(page.locator("#receipt-count")).to_have_text("1 received, 2 not received.")
    # New stock awaiting arrival becomes available here (or is taken at once
    # by an order waiting for stock of its category).
    _, arriving = server.api("GET", "/api/v1/inventory", query={"deployStatuses": "AWAITING_ARRIVAL", "size": "100"})
    new_stock = next(i for i in arriving["data"] if i["serialNumber"])
    page.keyboard.type(new_stock["serialNumber"])
    page.keyboard.press("Enter")
    expect(entries).to_have_count(4)
    expect(entries.nth(0)).to_have_attribute("data-status", "200")
    _, stocked = server.api("GET", f"/api/v1/inventory/{new_stock['id']}")
    assert stocked["assignedTo"]["id"] == store["id"]
    if stocked["deployStatus"] == "AVAILABLE":
        expect(entries.nth(0)).to_contain_text(f"Received at {store['name']}: available.")
    else:
        assert stocked["deployReason"] == "PENDING_FULFILLMENT"
        expect(entries.nth(0)).to_contain_text("reserved at once for a joiner's order")
    expect(page.locator("#receipt-count")).to_have_text("2 received, 2 not received.")
    accessible(console, "receipt with results")
    console.shoot("receipt")
    # Release the hold early, still from the keyboard: Tab to its button.
    release = page.locator(".release-hold")
    for _ in range(12):
        page.keyboard.press("Tab")
        if release.evaluate("b => b === document.activeElement"):
            break
    expect(release).to_be_focused()
    page.keyboard.press("Enter")
    expect(entries.nth(3)).to_contain_text("Hold released")
    _, released = server.api("GET", f"/api/v1/inventory/{item['id']}")
    assert released["holdStartDate"] is None and released["deployReason"] != "PENDING_HOLD_RELEASE"


def test_the_receipt_desk_is_bookmarkable_and_records_the_condition_found(console):
    server = console.server
    _, stores = server.api("GET", "/api/v1/warehouses")
    store = stores["data"][-1]
    page = console.sign_in().page
    # Without a warehouse, a scan is not sent: the console says to choose one.
    console.go("#/receipt")
    expect(console.heading()).to_have_text("Warehouse receipt")
    page.get_by_label("Serial number").fill("ANYTHING-1")
    page.get_by_label("Serial number").press("Enter")
    expect(page.locator(".error")).to_contain_text("Choose the warehouse that receives the items first.")
    expect(page.locator("#receipt-warehouse")).to_be_focused()
    expect(page.locator(".receipt-entry")).to_have_count(0)
    expect(page.get_by_label("Serial number")).to_have_value("ANYTHING-1")
    # The desk's warehouse is in the URL: a bookmark opens the desk ready to scan.
    console.go(f"#/receipt?warehouseId={store['id']}")
    expect(page.locator("#receipt-warehouse")).to_have_value(store["id"])
    expect(page.locator("#receipt-serial")).to_be_focused()
    _, arriving = server.api("GET", "/api/v1/inventory", query={"deployStatuses": "AWAITING_ARRIVAL", "size": "100"})
    item = [i for i in arriving["data"] if i["serialNumber"]][-1]
    page.get_by_label("Condition found").select_option("USED_FAIR")
    page.keyboard.type(item["serialNumber"])
    page.keyboard.press("Enter")
    expect(page.locator(".receipt-entry").first).to_have_attribute("data-status", "200")
    _, now = server.api("GET", f"/api/v1/inventory/{item['id']}")
    assert now["condition"] == "USED_FAIR" and now["assignedTo"]["id"] == store["id"]


def test_orders_backorders_shipping_and_delivery(console):
    server = console.server
    page = console.sign_in().page
    console.go("#/orders")
    expect(console.heading()).to_have_text("Orders")
    _, answer = server.api("GET", "/api/v1/orders", query={"size": "25"})
    expect(page.locator("#result-count")).to_have_text(f"{answer['pagination']['totalRecords']} orders")
    first = answer["data"][0]
    row = page.locator("tr", has=page.locator(f"a[href='#/orders/{first['id']}']"))
    expect(row.locator("a.person-link")).to_have_text(person_name(server, first["personId"]))
    accessible(console, "orders")
    console.shoot("orders")
    with page.expect_download() as info:
        page.get_by_role("button", name="Export CSV").click()
    rows = list(csv.DictReader(io.StringIO(open(info.value.path(), encoding="utf-8-sig").read())))
    assert [r["order_id"] for r in rows] == [o["id"] for o in server.api("GET", "/api/v1/orders", query={"size": "1000"})[1]["data"]]
    assert rows[0]["person"] == person_name(server, first["personId"])
    # Backorders: the orders waiting for stock.
    page.get_by_role("link", name="Backorders", exact=True).click()
    expect(page).to_have_url(re.compile(r"#/orders\?status=PENDING"))
    expect(console.heading()).to_have_text("Backorders")
    _, waiting = server.api("GET", "/api/v1/orders", query={"status": "PENDING", "size": "25"})
    expect(page.locator("#result-count")).to_have_text(f"{waiting['pagination']['totalRecords']} orders waiting for stock")
    expect(page.locator("a.order-link")).to_have_count(len(waiting["data"]))
    if waiting["data"]:
        expect(page.locator("tbody")).to_contain_text("waiting for stock")
    accessible(console, "backorders")
    # One person's orders, from their page.
    console.go(f"#/people/{first['personId']}")
    page.get_by_role("link", name="Their orders").click()
    expect(page).to_have_url(re.compile(f"#/orders\\?personId={first['personId']}$"))
    expect(page.locator("#person-filter")).to_contain_text(f"Only {person_name(server, first['personId'])}'s orders.")
    _, theirs = server.api("GET", "/api/v1/orders", query={"personId": first["personId"]})
    expect(page.locator("a.order-link")).to_have_count(len(theirs["data"]))

    # Ship an order whose lines all hold items.
    _, ready = server.api("GET", "/api/v1/orders", query={"status": "ALLOCATED", "size": "100"})
    if not ready["data"]:
        pytest.skip("no ALLOCATED order left in the demo data")
    order = ready["data"][-1]
    who = person_name(server, order["personId"])
    console.go(f"#/orders/{order['id']}")
    expect(console.heading()).to_contain_text(f"Order for {who}")
    _, kit = server.api("GET", f"/api/v1/packages/{order['packageId']}")
    expect(page.locator(".facts")).to_contain_text(kit["name"])
    accessible(console, "an order")
    console.shoot("order")
    boxes = page.locator("input[name=lineIds]")
    expect(boxes).to_have_count(len([l for l in order["lines"] if l["status"] == "ALLOCATED"]))
    # A link that is not http(s): the API's 400 in words, nothing shipped.
    page.get_by_label("Carrier").fill("DHL")
    page.get_by_label("Tracking code").fill("JD0146")
    page.get_by_label("Tracking link").fill("ftp://files.example/parcel")
    page.get_by_role("button", name="Record the shipment").click()
    expect(page.locator(".error")).to_contain_text("400")
    expect(page.locator(".error")).to_contain_text("Tracking link must be an absolute http or https URL")
    _, same = server.api("GET", f"/api/v1/orders/{order['id']}")
    assert same["status"] == "ALLOCATED" and not same["shipments"]
    page.get_by_label("Tracking link").fill("")
    boxes.first.uncheck()
    page.get_by_role("button", name="Record the shipment").click()
    shipped_count = boxes.count() - 1 if boxes.count() else 0
    expect(page.locator("#order-outcome")).to_contain_text("Shipped")
    expect(page.locator("#order-outcome")).to_contain_text("with DHL, tracking JD0146")
    _, now = server.api("GET", f"/api/v1/orders/{order['id']}")
    assert now["status"] == "SHIPPED" and len(now["shipments"]) == 1
    shipment = now["shipments"][0]
    assert shipment["carrier"] == "DHL" and shipment["trackingCode"] == "JD0146"
    assert len(shipment["lineIds"]) == len(order["lines"]) - 1
    del shipped_count
    # The carrier reports a problem, then the delivery.
    page.get_by_role("button", name="Report a delivery problem").click()
    expect(page.locator("#order-outcome")).to_contain_text("Delivery problem recorded")
    _, now = server.api("GET", f"/api/v1/orders/{order['id']}")
    assert now["shipments"][0]["status"] == "DELIVERY_EXCEPTION"
    page.get_by_role("button", name="Mark delivered").click()
    expect(page.locator("#order-outcome")).to_contain_text("Delivered")
    _, now = server.api("GET", f"/api/v1/orders/{order['id']}")
    assert now["shipments"][0]["status"] == "DELIVERED" and now["shipments"][0]["deliveredAt"]
    for line in now["lines"]:
        if line["id"] in shipment["lineIds"]:
            assert line["status"] == "DELIVERED"
            _, item = server.api("GET", f"/api/v1/inventory/{line['itemId']}")
            assert item["deployStatus"] == "DEPLOYED" and item["assignedTo"]["id"] == order["personId"]
    # The order's timeline tells it in sentences, with who did what.
    timeline = page.locator(".timeline")
    expect(timeline).to_contain_text(f"Order made for {who}")
    expect(timeline).to_contain_text("shipped with DHL, tracking JD0146")
    expect(timeline).to_contain_text("The carrier reported a delivery problem")
    expect(timeline).to_contain_text("delivered to the person")
    expect(timeline).to_contain_text("by the key demo")
    # A delivered shipment offers nothing more; the line left behind can still ship.
    expect(page.locator("button[data-shipment]")).to_have_count(0)
    expect(page.locator("input[name=lineIds]")).to_have_count(1)


def test_packages_show_their_contents_in_words_and_are_edited(console):
    server = console.server
    page = console.sign_in().page
    console.go("#/packages")
    expect(console.heading()).to_have_text("Packages")
    _, answer = server.api("GET", "/api/v1/packages")
    expect(page.locator("a.package-link")).to_have_count(len(answer["data"]))
    pkg = next(p for p in answer["data"] if p["items"])
    # Category names and SKU titles are the catalog's (GET /api/v1/skus).
    _, catalog = server.api("GET", "/api/v1/skus")
    skus = {s["id"]: s for s in catalog["data"]}
    category = next(s["categoryName"] for s in catalog["data"] if s["categoryCode"] == pkg["items"][0]["categoryCode"])
    row = page.locator("tr", has=page.locator(f"a[href='#/packages/{pkg['id']}']"))
    expect(row).to_contain_text(f"{pkg['items'][0]['quantity']} × {category}")
    for entry in (e for p in answer["data"] for e in p["items"]):
        for sku_id in entry.get("skuIds") or []:
            expect(page.locator("main")).to_contain_text(skus[sku_id]["title"])
    expect(row).to_contain_text(pkg["slug"])
    accessible(console, "packages")
    console.shoot("packages")
    page.locator(f"a[href='#/packages/{pkg['id']}']").click()
    expect(console.heading()).to_have_text(pkg["name"])
    accessible(console, "a package")
    console.shoot("package")
    # A quantity the API refuses: its 400, naming the entry and field in words.
    page.get_by_label("Quantity").first.fill("25")
    page.get_by_role("button", name="Save the contents").click()
    expect(page.locator(".error")).to_contain_text("400")
    expect(page.locator(".error")).to_contain_text("Check the entry 1, quantity.")
    _, same = server.api("GET", f"/api/v1/packages/{pkg['id']}")
    assert same["items"] == pkg["items"]
    # A good change, and an entry added.
    page.get_by_label("Quantity").first.fill("2")
    page.get_by_role("button", name="Add an entry").click()
    expect(page.locator("fieldset.entry")).to_have_count(len(pkg["items"]) + 1)
    expect(page.locator("fieldset.entry").last.locator("select").first).to_be_focused()
    expect(page.locator("fieldset.entry").last.locator("legend")).to_have_text(f"Entry {len(pkg['items']) + 1}")
    # Removing an entry puts the keyboard back on "Add an entry".
    page.get_by_role("button", name="Add an entry").click()
    page.locator("fieldset.entry").last.get_by_role("button", name="Remove this entry").press("Enter")
    expect(page.get_by_role("button", name="Add an entry")).to_be_focused()
    expect(page.locator("fieldset.entry")).to_have_count(len(pkg["items"]) + 1)
    page.get_by_role("button", name="Save the contents").click()
    expect(page.locator("#package-outcome")).to_contain_text(f"now holds {len(pkg['items']) + 1} entries")
    _, now = server.api("GET", f"/api/v1/packages/{pkg['id']}")
    assert now["items"][0]["quantity"] == 2
    assert now["items"][0]["skuIds"] == pkg["items"][0]["skuIds"]
    assert len(now["items"]) == len(pkg["items"]) + 1
    # Put it back as it was (other tests read the demo's packages).
    status, _ = server.api("PUT", f"/api/v1/packages/{pkg['id']}", body={"items": pkg["items"]})
    assert status == 200


def test_a_key_without_write_scopes_sees_no_action(console, readonly_key):
    server = console.server
    page = console.sign_in(readonly_key).page
    expect(page.get_by_role("link", name="Returns", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Orders", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Packages", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Warehouse receipt", exact=True)).to_be_hidden()
    _, returns = server.api("GET", "/api/v1/return-orders", query={"status": "RETURN_KIT_SENT"})
    console.go(f"#/returns/{returns['data'][0]['id']}")
    expect(page.locator(".timeline li").first).to_be_visible()
    expect(page.get_by_role("button", name="Write off")).to_have_count(0)
    expect(page.locator("#retrieval-type")).to_have_count(0)
    _, orders = server.api("GET", "/api/v1/orders", query={"status": "SHIPPED"})
    console.go(f"#/orders/{orders['data'][0]['id']}")
    expect(page.locator("#shipments-title")).to_be_visible()
    expect(page.get_by_role("button", name="Mark delivered")).to_have_count(0)
    expect(page.get_by_role("button", name="Record the shipment")).to_have_count(0)
    _, packages = server.api("GET", "/api/v1/packages")
    console.go(f"#/packages/{packages['data'][0]['id']}")
    expect(console.heading()).to_have_text(packages["data"][0]["name"])
    expect(page.get_by_role("button", name="Save the contents")).to_have_count(0)
    console.go("#/receipt")
    expect(console.heading()).to_have_text("Not available with this key")
    expect(page.locator("main")).to_contain_text("returns:write")


def test_the_new_screens_fit_a_phone(console):
    page = console.sign_in().page
    page.set_viewport_size({"width": 375, "height": 760})
    _, returns = console.server.api("GET", "/api/v1/return-orders", query={"size": "1"})
    _, orders = console.server.api("GET", "/api/v1/orders", query={"size": "1"})
    _, packages = console.server.api("GET", "/api/v1/packages")
    for fragment in [
        "#/returns",
        f"#/returns/{returns['data'][0]['id']}",
        "#/receipt",
        "#/orders",
        f"#/orders/{orders['data'][0]['id']}",
        "#/packages",
        f"#/packages/{packages['data'][0]['id']}",
    ]:
        console.go(fragment)
        page.wait_for_function("() => !document.querySelector('main .loading')")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 375, f"{fragment} scrolls sideways ({wide} px)"


def test_a_key_that_reads_only_returns_and_orders_sees_no_ids(console):
    server = console.server
    key, _ = create_key(server.database_url, server.org, "Returns and orders only", "--scope", "returns:read,orders:read")
    server.keys["returns-orders-only"] = key
    page = console.sign_in(key).page
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    _, returns = server.api("GET", "/api/v1/return-orders", query={"status": "RETURN_KIT_SENT"})
    _, orders = server.api("GET", "/api/v1/orders", query={"status": "SHIPPED"})
    for fragment in ["#/returns", f"#/returns/{returns['data'][0]['id']}", "#/orders", f"#/orders/{orders['data'][0]['id']}"]:
        console.go(fragment)
        page.wait_for_function("() => !document.querySelector('main .loading')")
        expect(page.locator("main table").first).to_be_visible()
        shown = page.locator("main").inner_text()
        assert not uuid.search(shown), f"{fragment} shows an id: {uuid.search(shown).group(0)}"
    # Without events:read, a return's timeline is what its own dates say.
    console.go(f"#/returns/{returns['data'][0]['id']}")
    expect(page.locator(".timeline")).to_contain_text("Return opened for")
    expect(page.locator("main")).to_contain_text("With the scope events:read")


def test_timelines_name_any_key_of_the_organization(console, readonly_key):
    """A change made with another key reads "by the key <its label>" (GET
    /api/v1/api-keys), for the key that made it and for any other key that
    reads events."""
    server = console.server
    desk, _ = create_key(server.database_url, server.org, "Returns desk", "--scope", "returns:read,returns:write,inventory:read,scim")
    server.keys["returns-desk"] = desk
    order = new_return(server, count=1, key=desk)
    _, keys = server.api("GET", "/api/v1/api-keys")
    assert "Returns desk" in [k["label"] for k in keys["data"]]
    page = console.sign_in().page
    console.go(f"#/returns/{order['id']}")
    timeline = page.locator(".timeline")
    expect(timeline).to_contain_text("Return opened for")
    expect(timeline).to_contain_text("by the key Returns desk")
    expect(timeline).not_to_contain_text("by an API key")
    # A key that only reads (events:read included) names it too.
    page.get_by_role("button", name="Sign out").click()
    console.sign_in(readonly_key)
    console.go(f"#/returns/{order['id']}")
    expect(page.locator(".timeline")).to_contain_text("by the key Returns desk")


def test_returns_and_orders_in_dark_mode_are_accessible(dark):
    """The status badges keep their contrast in dark mode (axe-core)."""
    server = dark.server
    page = dark.sign_in().page
    _, returns = server.api("GET", "/api/v1/return-orders", query={"status": "RETURN_KIT_SENT", "size": "1"})
    _, orders = server.api("GET", "/api/v1/orders", query={"status": "SHIPPED", "size": "1"})
    for fragment in ["#/returns", f"#/returns/{returns['data'][0]['id']}", "#/orders", f"#/orders/{orders['data'][0]['id']}"]:
        # The previous screen stays until the next one draws: mark it, and
        # wait for it to be gone (else its badges are read, then vanish).
        page.evaluate("() => { for (const e of document.querySelectorAll('main > *')) e.dataset.stale = '1'; }")
        dark.go(fragment)
        page.wait_for_function("() => document.querySelector('main > *') && !document.querySelector('main > [data-stale]') && !document.querySelector('main .loading')")
        page.wait_for_load_state("networkidle")
        expect(page.locator("main .badge[data-status]").first).to_be_visible()
        background = page.evaluate("getComputedStyle(document.querySelector('main .badge[data-status]')).backgroundColor")
        assert max(int(x) for x in re.findall(r"\d+", background)[:3]) < 100, f"{fragment}: a light badge ({background})"
        accessible(dark, f"dark {fragment}")
    dark.shoot("dark-order")
