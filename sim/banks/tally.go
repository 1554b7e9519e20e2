package banks

// maxRowReads is the most bank words one sub-request reads. A sub-request
// asks for at most one row of data, so at most 64: Kepler's 256-B row in
// 4-byte words.
const maxRowReads = 64

// tally gathers the rows one request reads, per bank, with the number of
// reads of each row. It lives on the stack: each bank's rows form a list
// threaded through fixed arrays.
type tally struct {
	touched uint32    // banks read
	rows    [32]uint8 // distinct rows per bank
	head    [32]uint8 // 1 + index of a bank's latest row; 0 for none
	n       int       // rows gathered
	row     [maxRowReads]uint64
	bank    [maxRowReads]uint8
	reads   [maxRowReads]uint8 // lanes reading the row
	next    [maxRowReads]uint8 // 1 + index of the bank's previous row; 0 for none
}

// add records one lane's read of row in bank.
func (t *tally) add(bank int, row uint64) {
	if bit := uint32(1) << bank; t.touched&bit == 0 {
		t.touched |= bit
	} else {
		for i := t.head[bank]; i != 0; i = t.next[i-1] {
			if t.row[i-1] == row {
				t.reads[i-1]++
				return
			}
		}
	}
	t.row[t.n], t.bank[t.n], t.reads[t.n], t.next[t.n] = row, uint8(bank), 1, t.head[bank]
	t.n++
	t.head[bank] = uint8(t.n)
	t.rows[bank]++
}

// maxRows returns the most distinct rows any one bank must serve: the
// passes needed when a bank serves one row per pass to all its readers.
func (t *tally) maxRows() int {
	most := uint8(0)
	for _, n := range t.rows {
		most = max(most, n)
	}
	return int(most)
}

// broadcastSteps returns the fewest steps in which the CC 1.x procedure of
// PG42 F.3.3.2 serves the request: each step serves every lane that reads
// the one broadcast word and one lane in each other bank, and the guide
// leaves open which word and which lanes. Every row here is one 32-bit
// word.
//
// A bank read by n lanes finishes within s steps exactly when it is the
// broadcast bank in k of them with n − Σ(cᵢ − 1) ≤ s, where c₁ ≥ c₂ ≥ …
// are the reads of its words: the best k broadcasts serve its most-read
// words, and the other steps serve one lane each (lanes of other words
// first). One word is broadcast per step, so s steps suffice exactly when
// the banks together need at most s broadcasts. At least maxRows steps are
// needed, as a bank serves one word per step, and with that many every
// bank can finish.
func (t *tally) broadcastSteps() int {
	steps := t.maxRows()
	// order lists the words read by more than one lane, most reads first;
	// a request has at most 16 lanes, so at most 8 such words.
	var order [8]uint8
	shared := 0
	var lanes [32]int // lanes per bank
	for i := range t.n {
		lanes[t.bank[i]] += int(t.reads[i])
		if t.reads[i] < 2 {
			continue
		}
		j := shared
		for ; j > 0 && t.reads[order[j-1]] < t.reads[i]; j-- {
			order[j] = order[j-1]
		}
		order[j] = uint8(i)
		shared++
	}
	for t.broadcastsNeeded(steps, order[:shared], lanes) > steps {
		steps++
	}
	return steps
}

// broadcastsNeeded returns how many broadcast steps let every bank finish
// within steps steps, given the shared words in order of reads and the
// lanes per bank.
func (t *tally) broadcastsNeeded(steps int, order []uint8, left [32]int) int {
	need := 0
	for _, i := range order {
		if b := t.bank[i]; left[b] > steps {
			left[b] -= int(t.reads[i]) - 1
			need++
		}
	}
	return need
}
