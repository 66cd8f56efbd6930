//! Diesel table definitions, shared by both backends (the migrations under
//! `migrations/sqlite` and `migrations/postgres` create equivalent tables).
//!
//! Written by hand; keep in step with the migrations.

diesel::table! {
    organizations (id) {
        id -> Text,
        name -> Text,
        created_at -> Timestamp,
        hold_period_days -> Integer,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Text,
        organization_id -> Text,
        prefix -> Text,
        hash -> Text,
        scopes -> Text,
        label -> Nullable<Text>,
        created_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    warehouses (id) {
        id -> Text,
        owner_organization_id -> Nullable<Text>,
        name -> Text,
        address_configured -> Bool,
        street1 -> Nullable<Text>,
        street2 -> Nullable<Text>,
        city -> Nullable<Text>,
        province -> Nullable<Text>,
        postal_code -> Nullable<Text>,
        country_code -> Nullable<Text>,
        phone_number -> Nullable<Text>,
    }
}

diesel::table! {
    warehouse_grants (warehouse_id, organization_id) {
        warehouse_id -> Text,
        organization_id -> Text,
        granted_at -> Timestamp,
    }
}

diesel::table! {
    offices (id) {
        id -> Text,
        organization_id -> Text,
        name -> Text,
    }
}

diesel::table! {
    skus (id) {
        id -> Text,
        organization_id -> Text,
        title -> Text,
        category_code -> Text,
        category_name -> Text,
        vendor_code -> Text,
        vendor_name -> Text,
        vendor_sku -> Text,
    }
}

diesel::table! {
    packages (id) {
        id -> Text,
        organization_id -> Text,
        slug -> Text,
        name -> Text,
    }
}

diesel::table! {
    people (id) {
        id -> Text,
        organization_id -> Text,
        external_id -> Nullable<Text>,
        user_name -> Text,
        user_name_lower -> Text,
        given_name -> Nullable<Text>,
        family_name -> Nullable<Text>,
        display_name -> Nullable<Text>,
        phone_numbers -> Text,
        addresses -> Text,
        active -> Bool,
        package_id -> Nullable<Text>,
        start_date -> Nullable<Date>,
        status -> Text,
        skip_user_activation -> Nullable<Bool>,
        cpf_number -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        version -> BigInt,
        formatted_name -> Nullable<Text>,
        middle_name -> Nullable<Text>,
        honorific_prefix -> Nullable<Text>,
        honorific_suffix -> Nullable<Text>,
        nick_name -> Nullable<Text>,
        title -> Nullable<Text>,
        user_type -> Nullable<Text>,
        preferred_language -> Nullable<Text>,
        locale -> Nullable<Text>,
        timezone -> Nullable<Text>,
        profile_url -> Nullable<Text>,
        /// The profile's lists: a JSON object of arrays by attribute.
        profile_lists -> Text,
    }
}

diesel::table! {
    person_emails (person_id, position) {
        person_id -> Text,
        organization_id -> Text,
        position -> Integer,
        value -> Text,
        value_lower -> Text,
        kind -> Nullable<Text>,
        is_primary -> Bool,
    }
}

diesel::table! {
    inventory_items (id) {
        id -> Text,
        organization_id -> Text,
        sku_id -> Text,
        serial_number -> Nullable<Text>,
        imei -> Text,
        deploy_status -> Text,
        deploy_reason -> Nullable<Text>,
        condition -> Text,
        renewal_date -> Nullable<Date>,
        renewal_date_updated_by -> Nullable<Text>,
        billing_start_date -> Nullable<Date>,
        billing_end_date -> Nullable<Date>,
        procurement_method -> Nullable<Text>,
        assignee_type -> Nullable<Text>,
        assignee_id -> Nullable<Text>,
        assigned_at -> Nullable<Timestamp>,
        description -> Nullable<Text>,
        erp_invoice_id -> Nullable<Text>,
        hold_start_date -> Nullable<Date>,
        unlock_date -> Nullable<Date>,
        itad_requested -> Nullable<Bool>,
        device_program_status -> Nullable<Text>,
        device_program_last_sync_at -> Nullable<Timestamp>,
        device_program_next_sync_at -> Nullable<Timestamp>,
        supplied_by -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    inventory_item_pricing (item_id) {
        item_id -> Text,
        organization_id -> Text,
        region_code -> Text,
        price_option -> Text,
        price -> Double,
        currency_code -> Text,
        discounted_price -> Double,
        discount_percentage -> Double,
    }
}

diesel::table! {
    inventory_item_tags (item_id, position) {
        item_id -> Text,
        organization_id -> Text,
        position -> Integer,
        tag_id -> Text,
        label -> Text,
    }
}

diesel::table! {
    return_orders (id) {
        id -> Text,
        organization_id -> Text,
        person_id -> Nullable<Text>,
        status -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        cancelled -> Bool,
    }
}

diesel::table! {
    return_order_items (id) {
        id -> Text,
        organization_id -> Text,
        return_order_id -> Text,
        inventory_item_id -> Text,
        status -> Text,
        active -> Bool,
        retrieval_id -> Nullable<Text>,
        retrieval_type -> Nullable<Text>,
        retrieval_status -> Nullable<Text>,
        retrieval_updated_at -> Nullable<Timestamp>,
        inbound_tracking_code -> Nullable<Text>,
        inbound_tracking_link -> Nullable<Text>,
        outbound_tracking_code -> Nullable<Text>,
        outbound_tracking_link -> Nullable<Text>,
        itad_requested -> Bool,
        received_at -> Nullable<Timestamp>,
        warehouse_id -> Nullable<Text>,
        closed_reason -> Nullable<Text>,
    }
}

diesel::table! {
    inventory_levels (id) {
        id -> Text,
        organization_id -> Text,
        sku_id -> Text,
        warehouse_id -> Text,
        minimum_quantity -> Integer,
        target_quantity -> Integer,
        created_at -> Timestamp,
        deactivated_at -> Nullable<Timestamp>,
        below_minimum -> Bool,
    }
}

diesel::table! {
    reminders (id) {
        id -> Text,
        organization_id -> Text,
        person_id -> Text,
        sender_person_id -> Nullable<Text>,
        status -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    outbox_messages (id) {
        id -> Text,
        organization_id -> Text,
        reminder_id -> Text,
        recipient -> Text,
        subject -> Text,
        body_text -> Text,
        body_html -> Text,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        last_error -> Nullable<Text>,
        sent_at -> Nullable<Timestamp>,
        claimed_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    /// Groups of people (SCIM Groups); `display_name_key` is the folded name,
    /// unique per organization.
    groups (id) {
        id -> Text,
        organization_id -> Text,
        external_id -> Nullable<Text>,
        display_name -> Text,
        display_name_key -> Text,
        package_id -> Nullable<Text>,
        precedence -> Integer,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        version -> BigInt,
        member_count -> BigInt,
    }
}

diesel::table! {
    /// One row per membership of a person in a group.
    group_members (group_id, person_id) {
        organization_id -> Text,
        group_id -> Text,
        person_id -> Text,
    }
}

diesel::table! {
    people_active_counts (organization_id) {
        organization_id -> Text,
        n -> BigInt,
    }
}

// The inventory listing's read model (docs/storage.md): kept by
// `listing::refresh` and, for the counts, by triggers. Mostly reached through
// hand-written SQL (`crate::sql_builder`); declared here so that the schema is
// complete and simple statements can use the DSL.

diesel::table! {
    /// One row per item with its filter and sort keys and its rendered JSON.
    /// On SQLite the table also has `row_id`, the FTS index's stable rowid,
    /// which only SQLite-specific SQL uses.
    inventory_listing (item_id) {
        item_id -> Text,
        organization_id -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deploy_status -> Text,
        deploy_reason -> Text,
        condition_rank -> Integer,
        serial_number -> Text,
        sku_id -> Text,
        product -> Text,
        category -> Text,
        vendor_sku -> Text,
        assignee_type -> Text,
        assignee_id -> Text,
        assignee -> Text,
        renewal_date -> Text,
        supplied_by -> Text,
        search_text -> Text,
        item_json -> Nullable<Text>,
        listing_stamp -> BigInt,
    }
}

diesel::table! {
    /// Items per (organization, status, category), kept by triggers.
    inventory_counts (organization_id, deploy_status, category) {
        organization_id -> Text,
        deploy_status -> Text,
        category -> Text,
        n -> BigInt,
    }
}

diesel::table! {
    /// A counter per organization, bumped by every listing refresh.
    inventory_listing_versions (organization_id) {
        organization_id -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    /// The readiness probe's one-row table.
    health_probe (id) {
        id -> Integer,
        written_at -> Timestamp,
    }
}

diesel::table! {
    event_sequences (organization_id) {
        organization_id -> Text,
        last_sequence -> BigInt,
        pruned_through -> BigInt,
        pruned_through_id -> Nullable<Text>,
    }
}

diesel::table! {
    events (organization_id, sequence) {
        organization_id -> Text,
        sequence -> BigInt,
        id -> Text,
        #[sql_name = "type"]
        kind -> Text,
        occurred_at -> Timestamp,
        actor_type -> Text,
        actor_id -> Nullable<Text>,
        subject_type -> Text,
        subject_id -> Text,
        changes -> Nullable<Text>,
        actor_email -> Nullable<Text>,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Text,
        organization_id -> Text,
        url -> Text,
        types -> Text,
        secret -> Text,
        created_at -> Timestamp,
        status -> Text,
        disabled_at -> Nullable<Timestamp>,
        disabled_reason -> Nullable<Text>,
        failing_since -> Nullable<Timestamp>,
        position -> BigInt,
        attempts -> Integer,
        retry_since -> Nullable<Timestamp>,
        next_attempt_at -> Nullable<Timestamp>,
        claimed_until -> Nullable<Timestamp>,
        last_attempt_number -> BigInt,
        previous_secret -> Nullable<Text>,
        previous_secret_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    webhook_deliveries (webhook_id, number) {
        webhook_id -> Text,
        number -> BigInt,
        organization_id -> Text,
        event_id -> Text,
        sequence -> BigInt,
        attempted_at -> Timestamp,
        status_code -> Nullable<Integer>,
        latency_ms -> BigInt,
        error -> Nullable<Text>,
        outcome -> Text,
    }
}

diesel::table! {
    package_items (id) {
        id -> Text,
        organization_id -> Text,
        package_id -> Text,
        position -> Integer,
        category_code -> Text,
        sku_ids -> Text,
        quantity -> Integer,
    }
}

diesel::table! {
    orders (id) {
        id -> Text,
        organization_id -> Text,
        person_id -> Text,
        package_id -> Nullable<Text>,
        status -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    shipments (id) {
        id -> Text,
        organization_id -> Text,
        order_id -> Text,
        status -> Text,
        carrier -> Nullable<Text>,
        tracking_code -> Nullable<Text>,
        tracking_link -> Nullable<Text>,
        shipped_at -> Timestamp,
        delivered_at -> Nullable<Timestamp>,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    order_lines (id) {
        id -> Text,
        organization_id -> Text,
        order_id -> Text,
        position -> Integer,
        category_code -> Text,
        sku_ids -> Text,
        status -> Text,
        inventory_item_id -> Nullable<Text>,
        shipment_id -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::joinable!(return_order_items -> return_orders (return_order_id));
diesel::joinable!(warehouse_grants -> warehouses (warehouse_id));
diesel::joinable!(group_members -> groups (group_id));

diesel::table! {
    sso_configs (organization_id) {
        organization_id -> Text,
        issuer -> Text,
        client_id -> Text,
        client_secret -> Text,
        scopes -> Text,
        groups_claim -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    sso_roles (organization_id, group_name) {
        organization_id -> Text,
        group_name -> Text,
        scopes -> Text,
    }
}

diesel::table! {
    sso_login_attempts (state_hash) {
        state_hash -> Text,
        organization_id -> Text,
        nonce -> Text,
        pkce_verifier -> Text,
        next_path -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    sso_sessions (id) {
        id -> Text,
        organization_id -> Text,
        token_hash -> Text,
        subject -> Text,
        email -> Text,
        name -> Nullable<Text>,
        scopes -> Text,
        created_at -> Timestamp,
        last_seen_at -> Timestamp,
        expires_at -> Timestamp,
    }
}

diesel::table! {
    /// Which equip applied each migration (migration `2026-12-02-150000_migration_versions`).
    migration_versions (migration) {
        migration -> Text,
        name -> Text,
        equip_version -> Text,
        applied_at -> Timestamp,
    }
}

diesel::table! {
    /// When a person's offboarding started and completed (migration
    /// `2026-12-02-160001_offboarding_times`): a row once it started.
    person_offboardings (person_id) {
        person_id -> Text,
        organization_id -> Text,
        started_at -> Timestamp,
        offboarded_at -> Nullable<Timestamp>,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    organizations,
    event_sequences,
    events,
    api_keys,
    warehouses,
    warehouse_grants,
    offices,
    skus,
    packages,
    people,
    person_emails,
    person_offboardings,
    inventory_items,
    inventory_item_pricing,
    inventory_item_tags,
    return_orders,
    return_order_items,
    inventory_levels,
    reminders,
    outbox_messages,
    groups,
    group_members,
    webhooks,
    webhook_deliveries,
    package_items,
    orders,
    shipments,
    order_lines,
    sso_configs,
    sso_roles,
    sso_login_attempts,
    sso_sessions,
);
