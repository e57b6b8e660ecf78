// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// @notice Single-owner access control, after the Ownable pattern (OpenZeppelin). There is no
/// renounce: the owner is the operator who runs `recover`, and ownership only ever moves to
/// another non-zero address.
abstract contract Ownable {
    address private _owner;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error ZeroOwner();

    constructor(address initialOwner) {
        _setOwner(initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != _owner) revert NotOwner(msg.sender);
        _;
    }

    function owner() public view returns (address) {
        return _owner;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        _setOwner(newOwner);
    }

    function _setOwner(address newOwner) private {
        if (newOwner == address(0)) revert ZeroOwner();
        emit OwnershipTransferred(_owner, newOwner);
        _owner = newOwner;
    }
}
