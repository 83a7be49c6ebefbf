package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// rawCol scans a JSON column as it is.
type rawCol struct{ v *json.RawMessage }

func (c rawCol) Scan(src any) error {
	switch s := src.(type) {
	case string:
		*c.v = json.RawMessage(s)
	case []byte:
		*c.v = append(json.RawMessage(nil), s...)
	default:
		return errors.New("json column holds a non-text value")
	}
	return nil
}

// rawArg stores JSON as it is; empty is null.
func rawArg(v json.RawMessage) string {
	if len(v) == 0 {
		return "null"
	}
	return string(v)
}

const definitionColumns = `id, account_id, entity_type, api_slug, display_name, data_type, reference_type, validation,
	default_format, default_value, created_at, updated_at`

func scanDefinition(r row) (boxwatch.CustomFieldDefinition, error) {
	var d boxwatch.CustomFieldDefinition
	err := r.Scan(nullString{&d.ID}, nullString{&d.AccountID}, &d.EntityType, &d.APISlug, &d.DisplayName, &d.DataType,
		&d.ReferenceType, jsonCol{&d.Validation}, &d.DefaultFormat, rawCol{&d.DefaultValue}, timeCol{&d.CreatedAt}, timeCol{&d.UpdatedAt})
	return d, err
}

// slugTaken is the error for a second definition with an API slug.
func slugTaken(d boxwatch.CustomFieldDefinition) error {
	return boxwatch.Invalid("/data/attributes/api_slug", boxwatch.CodeTaken, "A %s custom field is already called '%s'.", d.EntityType, d.APISlug)
}

// CreateCustomFieldDefinition stores a new definition; a slug the account already uses for the
// entity type is a taken error at api_slug.
func (db *DB) CreateCustomFieldDefinition(ctx context.Context, d boxwatch.CustomFieldDefinition) error {
	validation, err := jsonArg(d.Validation)
	if err != nil {
		return err
	}
	_, err = db.write.exec(ctx, "INSERT INTO custom_field_definitions ("+definitionColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		d.ID, d.AccountID, d.EntityType, d.APISlug, d.DisplayName, d.DataType, d.ReferenceType, validation, d.DefaultFormat,
		rawArg(d.DefaultValue), db.ts(d.CreatedAt), db.ts(d.UpdatedAt))
	if err := db.internal("create custom field definition", err); err != nil {
		if errors.Is(err, errUniqueViolation) {
			return slugTaken(d)
		}
		return err
	}
	return nil
}

// CustomFieldDefinition returns one of the account's definitions, or ErrNotFound.
func (db *DB) CustomFieldDefinition(ctx context.Context, accountID, id string) (boxwatch.CustomFieldDefinition, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.CustomFieldDefinition{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, definitionKey(id), accountID, func() (boxwatch.CustomFieldDefinition, error) {
		d, err := scanDefinition(db.read.queryRow(ctx, "SELECT "+definitionColumns+" FROM custom_field_definitions WHERE account_id = ? AND id = ?",
			accountID, id))
		return d, db.lookupErr("custom field definition", err)
	})
}

// CustomFieldDefinitionBySlug returns the account's definition of an entity type by its API
// slug, or ErrNotFound.
func (db *DB) CustomFieldDefinitionBySlug(ctx context.Context, accountID, entityType, slug string) (boxwatch.CustomFieldDefinition, error) {
	d, err := scanDefinition(db.read.queryRow(ctx, "SELECT "+definitionColumns+
		" FROM custom_field_definitions WHERE account_id = ? AND entity_type = ? AND api_slug = ?", accountID, entityType, slug))
	return d, db.lookupErr("custom field definition", err)
}

// CustomFieldDefinitions returns one page of the account's definitions, newest first, and how
// many match; DisplayName matches a part of the name, case-insensitively.
func (db *DB) CustomFieldDefinitions(ctx context.Context, accountID string, f boxwatch.CustomFieldDefinitionFilter, p boxwatch.Page) ([]boxwatch.CustomFieldDefinition, int, error) {
	conds, args := []string{"account_id = ?"}, []any{accountID}
	if f.EntityType != "" {
		conds, args = append(conds, "entity_type = ?"), append(args, f.EntityType)
	}
	if f.DataType != "" {
		conds, args = append(conds, "data_type = ?"), append(args, f.DataType)
	}
	if f.DisplayName != "" {
		conds = append(conds, "upper(display_name) LIKE upper(?) ESCAPE '\\'")
		args = append(args, "%"+likeEscaper.Replace(f.DisplayName)+"%")
	}
	return page(ctx, db, "custom_field_definitions", definitionColumns, strings.Join(conds, " AND "), args, p, scanDefinition)
}

// UpdateCustomFieldDefinition writes a definition's display name, validation, default format and
// default value; the rest is fixed at creation. ErrNotFound when the account has no such definition.
func (db *DB) UpdateCustomFieldDefinition(ctx context.Context, d boxwatch.CustomFieldDefinition) error {
	validation, err := jsonArg(d.Validation)
	if err != nil {
		return err
	}
	n, err := db.write.exec(ctx, `UPDATE custom_field_definitions SET display_name = ?, validation = ?, default_format = ?,
		default_value = ?, updated_at = ? WHERE account_id = ? AND id = ?`,
		d.DisplayName, validation, d.DefaultFormat, rawArg(d.DefaultValue), db.ts(d.UpdatedAt), d.AccountID, d.ID)
	db.cache.evict(definitionKey(strings.ToLower(d.ID)))
	return affected(db.internal("update custom field definition", err), n)
}

// DeleteCustomFieldDefinition removes a definition with its options and values.
func (db *DB) DeleteCustomFieldDefinition(ctx context.Context, accountID, id string) error {
	if !boxwatch.IsUUID(id) {
		return boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	var n int64
	err := db.InTx(ctx, func(t boxwatch.Tx) error {
		tx := t.(*txn)
		// The options go with the definition: deleted here first, so that this store evicts each
		// before the call returns (the trigger tells the other replicas).
		rs, err := tx.c.query(ctx, "DELETE FROM custom_field_options WHERE account_id = ? AND definition_id = ? RETURNING id", accountID, id)
		if err != nil {
			return err
		}
		options, err := collect(rs, func(r row) (string, error) {
			var id string
			return id, r.Scan(nullString{&id})
		})
		if err != nil {
			return err
		}
		for _, o := range options {
			tx.evict(optionKey(o))
		}
		tx.evict(definitionKey(id), definitionOptionsKey(id))
		n, err = tx.c.exec(ctx, "DELETE FROM custom_field_definitions WHERE account_id = ? AND id = ?", accountID, id)
		return err
	})
	return affected(db.internal("delete custom field definition", err), n)
}

// affected turns a statement that touched no row into ErrNotFound.
func affected(err error, n int64) error {
	if err != nil {
		return err
	}
	if n == 0 {
		return boxwatch.ErrNotFound
	}
	return nil
}

const optionColumns = `id, account_id, definition_id, label, value, position, created_at, updated_at`

func scanOption(r row) (boxwatch.CustomFieldOption, error) {
	var o boxwatch.CustomFieldOption
	var pos *int64
	err := r.Scan(nullString{&o.ID}, nullString{&o.AccountID}, nullString{&o.DefinitionID}, &o.Label, &o.Value, &pos,
		timeCol{&o.CreatedAt}, timeCol{&o.UpdatedAt})
	if pos != nil {
		n := int(*pos)
		o.Position = &n
	}
	return o, err
}

func optionTaken(o boxwatch.CustomFieldOption) error {
	return boxwatch.Invalid("/data/attributes/value", boxwatch.CodeTaken, "The definition already has an option with the value '%s'.", o.Value)
}

// CreateCustomFieldOption stores a new option; a value the definition already has is a taken error.
func (db *DB) CreateCustomFieldOption(ctx context.Context, o boxwatch.CustomFieldOption) error {
	_, err := db.write.exec(ctx, "INSERT INTO custom_field_options ("+optionColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		o.ID, o.AccountID, o.DefinitionID, o.Label, o.Value, o.Position, db.ts(o.CreatedAt), db.ts(o.UpdatedAt))
	db.cache.evict(definitionOptionsKey(strings.ToLower(o.DefinitionID)))
	if err := db.internal("create custom field option", err); err != nil {
		if errors.Is(err, errUniqueViolation) {
			return optionTaken(o)
		}
		return err
	}
	return nil
}

// CustomFieldOptions returns the options of one of the account's definitions, by position (those
// without last), then oldest first.
func (db *DB) CustomFieldOptions(ctx context.Context, accountID, definitionID string) ([]boxwatch.CustomFieldOption, error) {
	if !boxwatch.IsUUID(definitionID) {
		return []boxwatch.CustomFieldOption{}, nil
	}
	definitionID = strings.ToLower(definitionID)
	return cached(db.cache, definitionOptionsKey(definitionID), accountID, func() ([]boxwatch.CustomFieldOption, error) {
		rs, err := db.read.query(ctx, "SELECT "+optionColumns+` FROM custom_field_options WHERE account_id = ? AND definition_id = ?
			ORDER BY position IS NULL, position, created_at, id`, accountID, definitionID)
		if err != nil {
			return nil, db.internal("list custom field options", err)
		}
		defer rs.Close()
		out := []boxwatch.CustomFieldOption{}
		for rs.Next() {
			o, err := scanOption(rs)
			if err != nil {
				return nil, db.internal("scan custom field option", err)
			}
			out = append(out, o)
		}
		return out, db.internal("list custom field options", rs.Err())
	})
}

// CustomFieldOption returns one option of one of the account's definitions, or ErrNotFound.
func (db *DB) CustomFieldOption(ctx context.Context, accountID, definitionID, id string) (boxwatch.CustomFieldOption, error) {
	if !boxwatch.IsUUID(id) || !boxwatch.IsUUID(definitionID) {
		return boxwatch.CustomFieldOption{}, boxwatch.ErrNotFound
	}
	id, definitionID = strings.ToLower(id), strings.ToLower(definitionID)
	o, err := cached(db.cache, optionKey(id), accountID, func() (boxwatch.CustomFieldOption, error) {
		o, err := scanOption(db.read.queryRow(ctx, "SELECT "+optionColumns+
			" FROM custom_field_options WHERE account_id = ? AND definition_id = ? AND id = ?", accountID, definitionID, id))
		return o, db.lookupErr("custom field option", err)
	})
	if err == nil && o.DefinitionID != definitionID { // cached when read through its own definition
		return boxwatch.CustomFieldOption{}, boxwatch.ErrNotFound
	}
	return o, err
}

// UpdateCustomFieldOption writes an option's label, value and position.
func (db *DB) UpdateCustomFieldOption(ctx context.Context, o boxwatch.CustomFieldOption) error {
	n, err := db.write.exec(ctx, `UPDATE custom_field_options SET label = ?, value = ?, position = ?, updated_at = ?
		WHERE account_id = ? AND definition_id = ? AND id = ?`, o.Label, o.Value, o.Position, db.ts(o.UpdatedAt), o.AccountID, o.DefinitionID, o.ID)
	db.cache.evict(optionKey(strings.ToLower(o.ID)), definitionOptionsKey(strings.ToLower(o.DefinitionID)))
	if err := db.internal("update custom field option", err); err != nil {
		if errors.Is(err, errUniqueViolation) {
			return optionTaken(o)
		}
		return err
	}
	return affected(nil, n)
}

// DeleteCustomFieldOption removes an option; values that chose it keep their text.
func (db *DB) DeleteCustomFieldOption(ctx context.Context, accountID, definitionID, id string) error {
	if !boxwatch.IsUUID(id) || !boxwatch.IsUUID(definitionID) {
		return boxwatch.ErrNotFound
	}
	n, err := db.write.exec(ctx, "DELETE FROM custom_field_options WHERE account_id = ? AND definition_id = ? AND id = ?",
		accountID, strings.ToLower(definitionID), strings.ToLower(id))
	db.cache.evict(optionKey(strings.ToLower(id)), definitionOptionsKey(strings.ToLower(definitionID)))
	return affected(db.internal("delete custom field option", err), n)
}

// customFieldSource is the custom fields with their definitions' slug and entity type.
const customFieldSource = `(SELECT f.id, f.account_id, f.definition_id, d.api_slug, d.entity_type, f.entity_id, f.value,
	f.created_at, f.updated_at FROM custom_fields f JOIN custom_field_definitions d ON d.id = f.definition_id) cf`

const customFieldColumns = `id, account_id, definition_id, api_slug, entity_type, entity_id, value, created_at, updated_at`

func scanCustomField(r row) (boxwatch.CustomField, error) {
	var f boxwatch.CustomField
	err := r.Scan(nullString{&f.ID}, nullString{&f.AccountID}, nullString{&f.DefinitionID}, &f.APISlug, &f.EntityType,
		nullString{&f.EntityID}, rawCol{&f.Value}, timeCol{&f.CreatedAt}, timeCol{&f.UpdatedAt})
	return f, err
}

// SetCustomField sets the value of a definition on a resource: a new custom field with f.ID, or
// the existing one's value replaced. It returns the field as stored, or ErrNotFound when the
// account has no such definition.
func (db *DB) SetCustomField(ctx context.Context, f boxwatch.CustomField) (boxwatch.CustomField, error) {
	var out boxwatch.CustomField
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		var err error
		out, err = tx.(*txn).SetCustomField(ctx, f)
		return err
	})
	return out, err
}

// SetCustomField is DB.SetCustomField inside a transaction.
func (tx *txn) SetCustomField(ctx context.Context, f boxwatch.CustomField) (boxwatch.CustomField, error) {
	out, err := tx.db.setCustomField(ctx, tx.c, f)
	// The row replaced, when there was one, keeps its id: the value read back has it.
	if err == nil {
		tx.evict(customFieldKey(out.ID))
	}
	return out, err
}

func (db *DB) setCustomField(ctx context.Context, c conn, f boxwatch.CustomField) (boxwatch.CustomField, error) {
	// A definition deleted meanwhile (or another account's) takes no value.
	var one int
	if err := db.lookupErr("custom field definition", c.queryRow(ctx, "SELECT 1 FROM custom_field_definitions WHERE id = ? AND account_id = ?",
		f.DefinitionID, f.AccountID).Scan(&one)); err != nil {
		return boxwatch.CustomField{}, err
	}
	_, err := c.exec(ctx, `INSERT INTO custom_fields (id, account_id, definition_id, entity_id, value, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (definition_id, entity_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		f.ID, f.AccountID, f.DefinitionID, strings.ToLower(f.EntityID), rawArg(f.Value), db.ts(f.CreatedAt), db.ts(f.UpdatedAt))
	if err := db.internal("set custom field", err); err != nil {
		return boxwatch.CustomField{}, err
	}
	out, err := scanCustomField(c.queryRow(ctx, "SELECT "+customFieldColumns+" FROM "+customFieldSource+
		" WHERE definition_id = ? AND entity_id = ?", f.DefinitionID, strings.ToLower(f.EntityID)))
	return out, db.internal("read custom field", err)
}

// CustomField returns one of the account's custom fields, or ErrNotFound.
func (db *DB) CustomField(ctx context.Context, accountID, id string) (boxwatch.CustomField, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.CustomField{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	if db.cache == nil {
		f, err := scanCustomField(db.read.queryRow(ctx, "SELECT "+customFieldColumns+" FROM "+customFieldSource+
			" WHERE account_id = ? AND id = ?", accountID, id))
		return f, db.lookupErr("custom field", err)
	}
	// The row and its definition come from the cache, each evicted by its own trigger.
	f, err := cached(db.cache, customFieldKey(id), accountID, func() (boxwatch.CustomField, error) {
		var f boxwatch.CustomField
		err := db.read.queryRow(ctx, "SELECT id, account_id, definition_id, entity_id, value, created_at, updated_at FROM custom_fields"+
			" WHERE account_id = ? AND id = ?", accountID, id).Scan(nullString{&f.ID}, nullString{&f.AccountID}, nullString{&f.DefinitionID},
			nullString{&f.EntityID}, rawCol{&f.Value}, timeCol{&f.CreatedAt}, timeCol{&f.UpdatedAt})
		return f, db.lookupErr("custom field", err)
	})
	if err != nil {
		return boxwatch.CustomField{}, err
	}
	d, err := db.CustomFieldDefinition(ctx, accountID, f.DefinitionID)
	if err != nil {
		return boxwatch.CustomField{}, err // a definition deleted takes its values with it
	}
	f.APISlug, f.EntityType = d.APISlug, d.EntityType
	return f, nil
}

// CustomFields returns one page of the account's custom fields, newest first, and how many match.
func (db *DB) CustomFields(ctx context.Context, accountID string, f boxwatch.CustomFieldFilter, p boxwatch.Page) ([]boxwatch.CustomField, int, error) {
	conds, args := []string{"account_id = ?"}, []any{accountID}
	for _, c := range []struct{ col, v string }{{"entity_type", f.EntityType}, {"entity_id", f.EntityID}, {"definition_id", f.DefinitionID}} {
		if c.v == "" {
			continue
		}
		v := c.v
		if c.col != "entity_type" {
			if !boxwatch.IsUUID(v) {
				return []boxwatch.CustomField{}, 0, nil // no id matches what is not an id
			}
			v = strings.ToLower(v)
		}
		conds, args = append(conds, c.col+" = ?"), append(args, v)
	}
	return page(ctx, db, customFieldSource, customFieldColumns, strings.Join(conds, " AND "), args, p, scanCustomField)
}

// DeleteCustomField removes one of the account's custom fields.
func (db *DB) DeleteCustomField(ctx context.Context, accountID, id string) error {
	if !boxwatch.IsUUID(id) {
		return boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	n, err := db.write.exec(ctx, "DELETE FROM custom_fields WHERE account_id = ? AND id = ?", accountID, id)
	db.cache.evict(customFieldKey(id))
	return affected(db.internal("delete custom field", err), n)
}
