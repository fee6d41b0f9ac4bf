package rules

import (
	"hash/fnv"
	"math/rand/v2"
)

// Rand is the only source of randomness an engine may use. Each purpose gets
// its own stream derived from the game's seed, so adding a draw for one
// purpose never shifts another (roles stay the same if the deck changes).
type Rand struct{ *rand.Rand }

// NewRand returns the stream for one purpose of one game.
func NewRand(seed int64, purpose string) *Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return &Rand{rand.New(rand.NewPCG(uint64(seed), h.Sum64()))}
}

// Shuffled returns a shuffled copy of xs.
func Shuffled[T any](r *Rand, xs []T) []T {
	out := append([]T(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
