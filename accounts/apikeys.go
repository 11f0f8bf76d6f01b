package accounts

// APIKeyPrefixLen is how many leading characters of a key are stored and shown, so a person can
// tell their keys apart ("pk_" plus 7 random characters).
const APIKeyPrefixLen = 10

// NewAPIKey returns a new API key ("pk_" + 32 random bytes in base64url, 46 characters), the
// prefix to show for it, and its SHA-256, the only form in which it is stored.
func NewAPIKey() (key, prefix string, hash []byte, err error) {
	token, _, err := NewToken()
	if err != nil {
		return "", "", nil, err
	}
	key = "pk_" + token
	return key, key[:APIKeyPrefixLen], HashToken(key), nil
}
