import SwipeEngine

extension SwipeSession {
    /// Seconds between arrow presses that count as a repeat (each repeat moves further).
    static var keyRepeatWindow: Double { 0.25 }
    /// Points the first arrow press moves the card.
    static var firstKeyStep: Double { 15 }

    /// Handles one input event that arrived at `time` (seconds, monotonic).
    public mutating func handle(_ event: InputEvent, at time: Double) {
        tick(at: time)
        checkCardStillThere()
        switch event {
        case .key(.character("q")), .key(.escape), .key(.ctrl("c")):
            quit()
        case .key(.character("u")):
            undo()
        case .key(.character(let digit)) where drag == nil && ("1"..."9").contains(digit):
            pickChoice(Int(String(digit)) ?? 0)
        case .key(.left), .key(.right), .key(.enter), .key(.space), .mouse:
            // Nothing is drawn on a screen too small: nothing to swipe, and a drag begun is cancelled.
            guard SessionLayout(size: size, cardSize: cardSize) != nil else {
                cancelDrag("the screen is too small to swipe on; the card went back")
                return
            }
            switch event {
            case .key(.left): keyboardStep(.left)
            case .key(.right): keyboardStep(.right)
            case .key(.enter), .key(.space):
                if case .keyboard(let x, let lastKeyTime, _) = drag {
                    // Arrow presses move the card in jumps, whose fitted velocity means nothing (a held key
                    // then Enter read as a fling back): the release is put after the velocity window, so the
                    // distance alone decides, as for a card held still before letting go.
                    let still = max(now, lastKeyTime + VelocityTracker().maximumGap + 0.01)
                    release(translation: SwipeVector(x: x, y: 0), at: still)
                }
            case .mouse(let mouse): handleMouse(mouse)
            default: break
            }
        default:
            break
        }
    }

    /// Cancels a drag in progress (a cancel never commits): the card settles back, `why` is said.
    mutating func cancelDrag(_ why: String) {
        guard drag != nil else { return }
        guard var gesture, let card = gestureCard else {
            drag = nil
            return
        }
        let cancelled = gesture.cancel(time: now)
        self.gesture = nil
        drag = nil
        frame = nil
        apply(cancelled, card: card)
        lastAction = why
    }

    mutating func quit() {
        if drag != nil, var gesture {
            // A drag in progress when the user quits is cancelled: cancel never commits.
            _ = gesture.cancel(time: now)
            self.gesture = gesture
        }
        drag = nil
        isFinished = true
    }

    /// Rule 8: if a sync removed the top card mid-gesture, the gesture is invalidated and can never commit.
    mutating func checkCardStillThere() {
        if position > deck.cards.count { position = deck.cards.count }
        guard drag != nil, var gesture, !deck.cards.contains(where: { $0.id == gesture.cardID }) else { return }
        frame = gesture.invalidate()
        self.gesture = nil
        drag = nil
        lastAction = "the card vanished (deleted elsewhere); nothing was deleted here"
    }

    mutating func handleMouse(_ mouse: MouseEvent) {
        guard let layout = SessionLayout(size: size, cardSize: cardSize) else { return }
        switch (mouse.kind, drag) {
        case (.press, .mouse?):
            // A press while a drag is held: its release never arrived (lost to a resize, another window).
            // The old drag is cancelled, not released where this click happens to be.
            cancelDrag("the mouse button's release was lost; the card went back")
        case (.press, nil) where mouse.button == .left:
            guard layout.isOnCard(column: mouse.column, row: mouse.row) else { return }
            guard beginGesture(location: layout.cardPoint(column: mouse.column, row: mouse.row)) else { return }
            drag = .mouse(column: mouse.column, row: mouse.row)
        case (.drag, .mouse(let column, let row)?):
            move(translation: layout.translation(columns: mouse.column - column, rows: mouse.row - row))
        case (.release, .mouse(let column, let row)?):
            release(translation: layout.translation(columns: mouse.column - column, rows: mouse.row - row))
        default:
            break
        }
    }

    mutating func keyboardStep(_ direction: SwipeDirection) {
        switch drag {
        case nil:
            let center = SwipeVector(x: cardSize.width / 2, y: cardSize.height / 4)
            guard beginGesture(location: center) else { return }
            drag = .keyboard(x: 0, lastKeyTime: -.infinity, step: 0)
            keyboardStep(direction)
        case .keyboard(let x, let lastKeyTime, let step)?:
            // Repeated presses within the window move further each time: a held key accelerates the card.
            let next = now - lastKeyTime < Self.keyRepeatWindow ? min(step * 1.6, 80) : Self.firstKeyStep
            // Never further than a card's width (past every threshold): the card stays partly on screen, and
            // a key held a moment too long is not a card to bring back from far off.
            let limit = max(cardSize.width, configuration.commitDistance.resolved(width: cardSize.width) * 1.5)
            let newX = min(limit, max(-limit, x + direction.sign * next))
            drag = .keyboard(x: newX, lastKeyTime: now, step: next)
            move(translation: SwipeVector(x: newX, y: 0))
        case .mouse?:
            break
        }
    }

    /// Reads the deck again when something else changed it (a `cards` command, a sync), keeping the card
    /// on top if it is still there; true when the cards changed.
    @discardableResult
    mutating func refreshDeck() -> Bool {
        let top = topCard?.id
        guard (try? deck.refresh()) == true else { return false }
        if let top, let index = deck.cards.firstIndex(where: { $0.id == top }) {
            position = index
        } else {
            position = min(position, deck.cards.count)
        }
        return true
    }

    /// Starts a gesture on the top card (the deck read again first if it changed); false when there is none.
    mutating func beginGesture(location: SwipeVector) -> Bool {
        refreshDeck()
        guard let card = topCard else { return false }
        if settling?.card.id == card.id { settling = nil }
        var gesture = SwipeGesture(configuration: configuration, cardSize: cardSize, cardID: card.id)
        frame = gesture.touchDown(SwipeSample(time: now, translation: .zero, location: location))
        self.gesture = gesture
        gestureCard = card
        return true
    }

    mutating func move(translation: SwipeVector) {
        guard var gesture else { return }
        frame = gesture.move(SwipeSample(time: now, translation: translation))
        self.gesture = gesture
    }

    /// Ends the drag at `translation` (at `time`, default now) and acts on the decision.
    mutating func release(translation: SwipeVector, at time: Double? = nil) {
        guard var gesture, let card = gestureCard else {
            drag = nil
            return
        }
        let released = gesture.touchUp(SwipeSample(time: time ?? now, translation: translation))
        self.gesture = nil
        drag = nil
        frame = nil
        apply(released, card: card)
    }

    /// Acts on a release: deletes through the deck, moves the stack on, starts the animation.
    mutating func apply(_ released: SwipeFrame, card: SwipeCardInfo) {
        let hint = released.animation
        func animation(_ kind: CardAnimation.Kind) -> CardAnimation {
            CardAnimation(
                card: card, kind: kind, fromOffset: released.offset, fromRotation: released.rotation,
                toOffset: hint?.targetOffset ?? .zero, toRotation: hint?.targetRotation ?? 0,
                anchor: hint?.anchor ?? released.anchor, start: now, duration: hint?.duration ?? 0)
        }
        switch released.decision {
        case .commit(.left, _)?:
            let index = position
            do {
                try deck.delete(id: card.id, reason: released.decision?.reasonName ?? "distance")
            } catch {
                if refreshDeck() && !deck.cards.contains(where: { $0.id == card.id }) {
                    lastAction = "“\(card.title)” was deleted elsewhere meanwhile; the deck was read again"
                    return
                }
                lastAction = "could not delete “\(card.title)”: \(error)"
                lastActionFailed = true
                settling = animation(.settle)
                settling?.toOffset = .zero
                settling?.toRotation = 0
                return
            }
            history.record(.init(cardID: card.id, index: index, direction: .left, deleted: true))
            undoCards[card.id] = card
            flying = animation(.exit)
            lastAction = "deleted “\(card.title)” (u undoes)"
        case .commit(.right, _)?:
            do {
                try deck.keep(id: card.id)
            } catch {
                lastAction = "could not keep “\(card.title)”: \(error)"
                lastActionFailed = true
                settling = animation(.settle)
                settling?.toOffset = .zero
                settling?.toRotation = 0
                return
            }
            history.record(.init(cardID: card.id, index: position, direction: .right, deleted: false))
            undoCards[card.id] = card
            position += 1
            flying = animation(.exit)
            lastAction = "kept “\(card.title)”"
        case .snapBack(let reason)?:
            settling = animation(.settle)
            lastAction = "snapped back: " + Self.words(for: reason)
        case .rejected?, .none?, nil:
            break
        }
        if position > deck.cards.count { position = deck.cards.count }
    }

    /// Keys 1…9 on a card with a field conflict: picks that value (one commit, as `cards resolve --pick`).
    mutating func pickChoice(_ number: Int) {
        guard let card = topCard, card.choices > 0 else { return }
        guard (1...card.choices).contains(number) else {
            lastAction = "no choice \(number): pick 1 to \(card.choices)"
            return
        }
        do {
            try deck.pick(id: card.id, choice: number)
            // `u` takes it back as it takes back a keep: the deck undoes the resolve commit (`unkeep`).
            history.record(.init(cardID: card.id, index: position, direction: .right, deleted: false))
            undoCards[card.id] = card
            picked.insert(card.id)
            lastAction = "picked choice \(number) for “\(card.title)” (u undoes)"
        } catch {
            lastAction = "could not pick choice \(number): \(error)"
            lastActionFailed = true
        }
        _ = refreshDeck()
    }

    static func words(for reason: SwipeDecision.SnapBackReason) -> String {
        switch reason {
        case .belowThreshold: return "not far enough"
        case .noDisplacementInAllowedDirection: return "this side does not swipe"
        case .reverseFling: return "flung back"
        case .flingTooShort: return "fling too short"
        case .cancelled: return "cancelled"
        case .invalidGeometry: return "the card size cannot swipe"
        }
    }

    /// Takes back the last swipe: a deleted card is restored at its place, a kept one shown again; either comes
    /// back from the side it left.
    mutating func undo() {
        guard drag == nil else { return }
        completeAnimations()
        guard let entry = history.popLast(), let card = undoCards[entry.cardID] else {
            lastAction = "nothing to undo"
            return
        }
        if !entry.deleted {
            do {
                try deck.unkeep(id: card.id)
            } catch {
                history.record(entry)
                lastAction = "could not take back the keep of “\(card.title)”: \(error)"
                lastActionFailed = true
                return
            }
        }
        if entry.deleted {
            do {
                try deck.restore(card, at: entry.index)
            } catch {
                if !(refreshDeck() && deck.cards.contains(where: { $0.id == card.id })) {
                    history.record(entry)
                    lastAction = "could not bring back “\(card.title)”: \(error)"
                    lastActionFailed = true
                    return
                }
                // Brought back elsewhere meanwhile (`cards undo`, `cards restore`): shown as back.
            }
        }
        position = deck.cards.firstIndex { $0.id == entry.cardID } ?? min(entry.index, deck.cards.count)
        let start = entry.entryOffset(configuration: configuration, cardSize: cardSize)
        settling = CardAnimation(
            card: card, kind: .return, fromOffset: start.offset, fromRotation: start.rotation, toOffset: .zero,
            toRotation: 0, anchor: .center, start: now, duration: max(configuration.settleDuration, 0.2))
        if picked.remove(card.id) != nil {
            lastAction = "took back the pick on “\(card.title)”: its conflict is open again"
        } else {
            lastAction = entry.deleted ? "undid delete of “\(card.title)”" : "brought back “\(card.title)”"
        }
    }
}
