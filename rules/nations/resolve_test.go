package nations

import (
	"reflect"
	"sort"
	"testing"
)

func inv(t string) Order       { return Order{Kind: KindInvade, Target: t} }
func def(t string) Order       { return Order{Kind: KindDefend, Target: t} }
func prosper() Order           { return Order{Kind: KindProsper} }
func vps(v ...int) []int       { return v }
func ids(s ...string) []string { return s }

// TestResolveTable checks every row of the rulings table, with and without
// each civilisation's bonus, several invaders, mutual invasions, thin-air
// payments, the 0 floor and elimination.
func TestResolveTable(t *testing.T) {
	t.Parallel()
	type row struct {
		name    string
		players []string // A, T, C, ... in this order
		start   []int    // VP at round start (default 100 each)
		civ     map[string]string
		orders  map[string]Order
		want    []int // VP after, same order as players
		elim    []string
	}
	rows := []row{
		// 1. target invaded someone: invader steals 10.
		{name: "target invading, Air invader", players: ids("A", "T", "C"),
			orders: map[string]Order{"A": inv("T"), "T": inv("C")}, want: vps(110, 100, 90)},
		{name: "target invading, Fire invader", players: ids("A", "T", "C"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("T"), "T": inv("C")}, want: vps(112, 98, 90)},
		{name: "target invading, Fire target gets its own bonus only on its own steal", players: ids("A", "T", "C"), civ: map[string]string{"T": Fire},
			orders: map[string]Order{"A": inv("T"), "T": inv("C")}, want: vps(110, 102, 88)},
		{name: "target invading, Water and Earth invaders get nothing extra", players: ids("A", "T", "C"), civ: map[string]string{"A": Water, "T": Earth},
			orders: map[string]Order{"A": inv("T"), "T": inv("C")}, want: vps(110, 100, 90)},
		// 2. defended and guessed the invader: target steals 12.
		{name: "guessed, Air target", players: ids("A", "T"),
			orders: map[string]Order{"A": inv("T"), "T": def("A")}, want: vps(88, 112)},
		{name: "guessed, Earth target", players: ids("A", "T"), civ: map[string]string{"T": Earth},
			orders: map[string]Order{"A": inv("T"), "T": def("A")}, want: vps(86, 114)},
		{name: "guessed, Fire invader gets no bonus", players: ids("A", "T"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("T"), "T": def("A")}, want: vps(88, 112)},
		{name: "guessed, Fire target gets no bonus (not invading)", players: ids("A", "T"), civ: map[string]string{"T": Fire},
			orders: map[string]Order{"A": inv("T"), "T": def("A")}, want: vps(88, 112)},
		// 3. defended, guessed someone else (or nobody): invader steals 6.
		{name: "wrong guess, Air invader", players: ids("A", "T", "C"),
			orders: map[string]Order{"A": inv("T"), "T": def("C")}, want: vps(106, 94, 100)},
		{name: "wrong guess, Fire invader", players: ids("A", "T", "C"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("T"), "T": def("C")}, want: vps(108, 92, 100)},
		{name: "wrong guess, Earth target gets no bonus", players: ids("A", "T", "C"), civ: map[string]string{"T": Earth},
			orders: map[string]Order{"A": inv("T"), "T": def("C")}, want: vps(106, 94, 100)},
		{name: "no guess, Air invader", players: ids("A", "T"),
			orders: map[string]Order{"A": inv("T"), "T": def("")}, want: vps(106, 94)},
		{name: "no guess, Fire invader", players: ids("A", "T"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("T"), "T": def("")}, want: vps(108, 92)},
		// 4. prospered: invader steals 25, target generates nothing.
		{name: "prosperer invaded, Air invader", players: ids("A", "T"),
			orders: map[string]Order{"A": inv("T"), "T": prosper()}, want: vps(125, 75)},
		{name: "prosperer invaded, Fire invader", players: ids("A", "T"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("T"), "T": prosper()}, want: vps(127, 73)},
		{name: "Water prosperer invaded gets no bonus", players: ids("A", "T"), civ: map[string]string{"T": Water},
			orders: map[string]Order{"A": inv("T"), "T": prosper()}, want: vps(125, 75)},
		// 5. did nothing: invader steals 10.
		{name: "idle target, Air invader", players: ids("A", "T"),
			orders: map[string]Order{"A": inv("T")}, want: vps(110, 90)},
		{name: "idle target, Fire invader", players: ids("A", "T"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("T")}, want: vps(112, 88)},
		// Prospering uninvaded.
		{name: "prosper, Air", players: ids("A", "T"),
			orders: map[string]Order{"A": prosper()}, want: vps(122, 100)},
		{name: "prosper, Water", players: ids("A", "T"), civ: map[string]string{"A": Water},
			orders: map[string]Order{"A": prosper()}, want: vps(126, 100)},
		{name: "prosper, Fire and Earth no bonus", players: ids("A", "T"), civ: map[string]string{"A": Fire, "T": Earth},
			orders: map[string]Order{"A": prosper(), "T": prosper()}, want: vps(122, 122)},
		{name: "defending uninvaded changes nothing, even Earth", players: ids("A", "T"), civ: map[string]string{"A": Earth},
			orders: map[string]Order{"A": def("T"), "T": def("")}, want: vps(100, 100)},
		// Several invaders, each by the table.
		{name: "three invaders of a prosperer", players: ids("A", "B", "C", "T"), civ: map[string]string{"A": Fire, "T": Water},
			orders: map[string]Order{"A": inv("T"), "B": inv("T"), "C": inv("T"), "T": prosper()},
			want:   vps(127, 125, 125, 23)},
		{name: "two invaders of a guesser: one guessed, one not", players: ids("A", "B", "T"), civ: map[string]string{"B": Fire, "T": Earth},
			orders: map[string]Order{"A": inv("T"), "B": inv("T"), "T": def("A")},
			want:   vps(86, 108, 100+14-8)},
		{name: "two invaders of an idle player", players: ids("A", "B", "T"),
			orders: map[string]Order{"A": inv("T"), "B": inv("T")}, want: vps(110, 110, 80)},
		// Mutual invasions.
		{name: "mutual invasion, Air both", players: ids("A", "B"),
			orders: map[string]Order{"A": inv("B"), "B": inv("A")}, want: vps(100, 100)},
		{name: "mutual invasion, Fire against Air", players: ids("A", "B"), civ: map[string]string{"A": Fire},
			orders: map[string]Order{"A": inv("B"), "B": inv("A")}, want: vps(102, 98)},
		{name: "invasion cycle", players: ids("A", "B", "C"),
			orders: map[string]Order{"A": inv("B"), "B": inv("C"), "C": inv("A")}, want: vps(100, 100, 100)},
		// Thin air, floor, elimination.
		{name: "thin air: invader paid in full, victim floored and out", players: ids("A", "T"), start: vps(100, 4),
			orders: map[string]Order{"A": inv("T")}, want: vps(110, 0), elim: ids("T")},
		{name: "thin air: three invaders of a poor prosperer", players: ids("A", "B", "C", "T"), start: vps(100, 100, 100, 30),
			civ: map[string]string{"A": Fire}, orders: map[string]Order{"A": inv("T"), "B": inv("T"), "C": inv("T"), "T": prosper()},
			want: vps(127, 125, 125, 0), elim: ids("T")},
		{name: "exactly 0 is out", players: ids("A", "T"), start: vps(100, 10),
			orders: map[string]Order{"A": inv("T")}, want: vps(110, 0), elim: ids("T")},
		{name: "guessed invader driven to 0 by the defender", players: ids("A", "T"), start: vps(12, 100),
			orders: map[string]Order{"A": inv("T"), "T": def("A")}, want: vps(0, 112), elim: ids("A")},
		{name: "own gains count before the floor", players: ids("A", "B", "T", "C"), start: vps(100, 100, 5, 100),
			orders: map[string]Order{"A": inv("T"), "B": inv("T"), "T": inv("C")}, want: vps(110, 110, 0, 90), elim: ids("T")},
		{name: "gains can save a poor player", players: ids("A", "T", "C"), start: vps(100, 5, 100),
			orders: map[string]Order{"A": inv("T"), "T": inv("C")}, want: vps(110, 5, 90)},
		{name: "nobody does anything", players: ids("A", "B"), want: vps(100, 100)},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			vp := map[string]int{}
			for i, id := range r.players {
				vp[id] = 100
				if r.start != nil {
					vp[id] = r.start[i]
				}
			}
			before := map[string]int{}
			for k, v := range vp {
				before[k] = v
			}
			res := ResolveOrders(r.players, vp, r.civ, r.orders)
			if !reflect.DeepEqual(vp, before) {
				t.Errorf("ResolveOrders changed its input VP: %v", vp)
			}
			for i, id := range r.players {
				if res.After[id] != r.want[i] {
					t.Errorf("%s: %d, want %d (all %v)", id, res.After[id], r.want[i], res.After)
				}
			}
			elim := append([]string{}, r.elim...)
			sort.Strings(elim)
			got := append([]string{}, res.Eliminated...)
			sort.Strings(got)
			if !reflect.DeepEqual(got, elim) {
				t.Errorf("eliminated %v, want %v", res.Eliminated, r.elim)
			}
		})
	}
}

// TestResolveSteals checks the recorded steals the report and the awards use.
func TestResolveSteals(t *testing.T) {
	t.Parallel()
	res := ResolveOrders(ids("A", "B", "T"), map[string]int{"A": 100, "B": 100, "T": 100},
		map[string]string{"B": Fire, "T": Earth},
		map[string]Order{"A": inv("T"), "B": inv("T"), "T": def("A")})
	want := []Steal{
		{Invader: "A", Target: "T", Case: CaseGuessed, From: "A", To: "T", Amount: 14, Bonus: 2},
		{Invader: "B", Target: "T", Case: CaseDefending, From: "T", To: "B", Amount: 8, Bonus: 2},
	}
	if !reflect.DeepEqual(res.Steals, want) {
		t.Errorf("steals %+v, want %+v", res.Steals, want)
	}
	if len(res.Generated) != 0 {
		t.Errorf("generated %v", res.Generated)
	}
}
