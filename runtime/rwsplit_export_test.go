package runtime

// ResetReplicaHealth brings every replica of db back at once, so tests need
// not wait ReplicaDownFor.
func ResetReplicaHealth(db *DB) {
	for i := range db.health {
		db.health[i].downUntil.Store(0)
		db.health[i].downFor.Store(0)
	}
}
